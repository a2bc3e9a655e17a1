import Foundation
import LectorProtocol
import LectorSystem

/// MJPEG previews: one pump per (device, size class, boxes, colour) while at least one
/// client watches it, asking lectord for a SNAPSHOT at most `fps` times a second and
/// sending each new frame to every viewer, latest-only (a slow viewer skips frames,
/// never queues them). A `max_width` is rounded down to one of ``sizeClasses`` and at
/// most ``maximumPumps`` pumps run, so threads and lectord requests are bounded however
/// many different URLs clients ask for; a pump for a camera lectord does not know ends
/// its viewers' streams.
public final class PreviewHub: @unchecked Sendable {
    /// The multipart boundary of `/api/stream.mjpeg`.
    public static let boundary = "lectorframe"

    private struct Key: Hashable {
        let device: String?
        let maximumWidth: Int?
        let boxes: Bool
        let color: Bool
    }

    /// The widths a preview is sent at (a `max_width` between two is rounded down; below
    /// the first, the first); without `max_width`, the frame's own size.
    public static let sizeClasses = [160, 320, 640, 1280, 1920]
    /// Most pumps at once; a preview that would need another is refused (503).
    public static let maximumPumps = 32

    private let link: LectordRequests
    private let events: EventHub
    /// Most preview frames per second (`--preview-fps`).
    public let fps: Double
    private let logger: Logger
    // `lock` guards `viewers`.
    private let lock = NSLock()
    private var viewers: [Key: [ResponseStream]] = [:]

    public init(link: LectordRequests, events: EventHub, fps: Double, logger: Logger) {
        self.link = link
        self.events = events
        self.fps = fps
        self.logger = logger
    }

    /// The size class of a requested `max_width`.
    public static func sizeClass(_ maximumWidth: Int?) -> Int? {
        maximumWidth.map { width in sizeClasses.last { $0 <= width } ?? sizeClasses[0] }
    }

    /// Adds a viewer; starts the pump for its key if none runs. False (nothing added)
    /// when that would take more than ``maximumPumps`` pumps.
    public func add(device: String?, maximumWidth: Int?, boxes: Bool, color: Bool, stream: ResponseStream) -> Bool {
        let key = Key(device: device, maximumWidth: Self.sizeClass(maximumWidth), boxes: boxes, color: color)
        lock.lock()
        let start = viewers[key] == nil
        if start, viewers.count >= Self.maximumPumps {
            lock.unlock()
            return false
        }
        viewers[key, default: []].append(stream)
        lock.unlock()
        events.demand(seconds: 5)
        if start {
            let thread = Thread { [self] in pump(key) }
            thread.name = "lector-http-preview"
            thread.start()
        }
        return true
    }

    /// Ends the viewers of `key` (lectord does not know its camera) and forgets it.
    private func end(_ key: Key) {
        lock.lock()
        let ended = viewers.removeValue(forKey: key) ?? []
        lock.unlock()
        for viewer in ended { viewer.finish() }
    }

    /// How many pumps run.
    public var pumps: Int {
        lock.lock()
        defer { lock.unlock() }
        return viewers.count
    }

    /// The viewers still connected, or nil (and the pump's key removed) when none is.
    private func liveViewers(_ key: Key) -> [ResponseStream]? {
        lock.lock()
        defer { lock.unlock() }
        let live = (viewers[key] ?? []).filter { !$0.isClosed }
        if live.isEmpty {
            viewers[key] = nil
            return nil
        }
        viewers[key] = live
        return live
    }

    private func pump(_ key: Key) {
        let interval = 1 / fps
        var lastSeq: Int?
        var lastPart: [UInt8] = []
        var lastSent = Date()
        logger.debug("preview started", [("device", key.device ?? "default")])
        defer { logger.debug("preview stopped", [("device", key.device ?? "default")]) }
        while let current = liveViewers(key) {
            let started = Date()
            events.demand(seconds: 5)
            let request = Request.snapshot(device: key.device, boxes: key.boxes, maximumWidth: key.maximumWidth, color: key.color)
            let reply = try? link.request(request).message
            if case let .error(error)? = reply, error.message.contains("unknown device") {
                end(key)
                return
            }
            if case let .snapshot(snapshot)? = reply, Int(snapshot.sequence) != lastSeq {
                let seq = Int(snapshot.sequence)
                let jpeg = snapshot.data
                lastSeq = seq
                let part = Array("--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\nX-Lector-Seq: \(seq)\r\n\r\n".utf8)
                    + jpeg + Array("\r\n".utf8)
                for viewer in current { viewer.replaceUnsent(part) }
                lastPart = part
                lastSent = Date()
            } else if !lastPart.isEmpty, Date().timeIntervalSince(lastSent) > 5 {
                // Nothing new (the camera stopped): send the frame again, which also
                // finds viewers that have gone (a suspended connection notices nothing).
                for viewer in current { viewer.replaceUnsent(lastPart) }
                lastSent = Date()
            }
            let rest = interval - Date().timeIntervalSince(started)
            if rest > 0 { Thread.sleep(forTimeInterval: rest) }
        }
    }
}
