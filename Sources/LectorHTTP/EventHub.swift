import Foundation
import LectorClient
import LectorProtocol
import LectorSystem

/// The bridge's one watching connection to lectord. It WATCHes only while someone
/// needs it (an SSE client, a preview, a recent snapshot), so an idle bridge keeps
/// lectord idle too, and hands each stream message (TEXT, TRACK, FRAME, DEVICES, CODE)
/// to the Server-Sent-Events clients as lectord sent it.
public final class EventHub: @unchecked Sendable {
    /// Stream classes passed to SSE clients.
    public static let streamed: Set<String> = ["TEXT", "TRACK", "FRAME", "DEVICES", "CODE"]

    private struct Subscriber {
        let device: String?
        let stream: ResponseStream
    }

    private let socketPath: String
    private let logger: Logger
    // `condition` guards everything below.
    private let condition = NSCondition()
    private var subscribers: [Int: Subscriber] = [:]
    private var nextID = 0
    private var demandUntil = Date.distantPast
    /// The latest line of each class per device ("" for DEVICES), replayed to a new subscriber.
    private var latest: [String: [String: [UInt8]]] = [:]
    private var textCount: [String: Int] = [:]
    private var lastKeepalive = Date()

    public init(socketPath: String, logger: Logger) {
        self.socketPath = socketPath
        self.logger = logger
    }

    /// Adds an SSE client (all devices when `device` is nil); it first gets the latest
    /// DEVICES, TEXT, TRACK, FRAME and CODE known.
    public func subscribe(device: String?, stream: ResponseStream) {
        condition.lock()
        let id = nextID
        nextID += 1
        subscribers[id] = Subscriber(device: device, stream: stream)
        for name in ["DEVICES", "FRAME", "TRACK", "TEXT", "CODE"] {
            for (lineDevice, line) in latest[name] ?? [:] where device == nil || lineDevice.isEmpty || lineDevice == device {
                stream.write(Self.event(line))
            }
        }
        condition.broadcast()
        condition.unlock()
        logger.debug("events client", [("id", "\(id)"), ("device", device ?? "all")])
        stream.onClose { [weak self] in self?.unsubscribe(id) }
    }

    private func unsubscribe(_ id: Int) {
        condition.lock()
        subscribers[id] = nil
        condition.unlock()
        logger.debug("events client gone", [("id", "\(id)")])
    }

    /// Keeps lectord watched for `seconds` more (previews and snapshots need recognized frames).
    public func demand(seconds: Double) {
        condition.lock()
        demandUntil = max(demandUntil, Date(timeIntervalSinceNow: seconds))
        condition.broadcast()
        condition.unlock()
    }

    /// How many TEXT messages have arrived for `device` (all devices when nil).
    public func texts(device: String?) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return device.map { textCount[$0] ?? 0 } ?? textCount.values.reduce(0, +)
    }

    /// Waits until more than `count` TEXTs arrived for `device`, at most `timeout` seconds.
    public func waitForText(device: String?, beyond count: Int, timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while (device.map { textCount[$0] ?? 0 } ?? textCount.values.reduce(0, +)) <= count {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }

    /// The watching loop; returns when `stop` is raised.
    public func run(stop: StopSignal) {
        let link = LectordLink(path: socketPath, backoff: .growing(by: 0.2, to: 2), awaitsVersion: true)
        while !stop.isRaised {
            switch link.connectIfDue() {
            case .connected:
                logger.clearOnce("events")
                serve(link, stop: stop)
            case let .failed(error):
                logger.once("events", .warning, "cannot reach lectord", [("socket", socketPath), ("error", "\(error)")])
                stop.wait(seconds: max(0, link.nextAttempt.timeIntervalSinceNow))
            case .nothing:
                stop.wait(seconds: max(0.001, link.nextAttempt.timeIntervalSinceNow))
            }
        }
    }

    /// The WATCH this hub sends: everything streamed while wanted, nothing otherwise.
    static func watch(_ wanted: Bool) -> Request {
        var watch = WatchRequest()
        watch.enable = wanted
        if wanted {
            watch.text = true
            watch.frame = true
            watch.level = .word
            // TRACK messages (live text, proto_minor 3); older lectords ignore the member.
            watch.tracks = true
            // CODE messages (QR codes and barcodes, proto_minor 14); likewise ignored before.
            watch.codes = true
        }
        return .watch(watch)
    }

    /// Seconds between two DEVICES requests on an unwatched link: lectord closes a
    /// connection that neither watches nor asks (its `--idle-timeout`, 60 s by default).
    static let linkKeepalive = 20.0

    private func serve(_ link: LectordLink, stop: StopSignal) {
        var watching = false
        var lastSent = Date()
        while !stop.isRaised {
            let wanted = wantsWatch()
            if wanted != watching || (!watching && Date().timeIntervalSince(lastSent) >= Self.linkKeepalive) {
                let request = wanted != watching ? Self.watch(wanted) : Request.devices
                do { try link.send(request) } catch { return }
                if wanted != watching { logger.debug("watch", [("enable", "\(wanted)")]) }
                watching = wanted
                lastSent = Date()
            }
            keepalive()
            let line: [UInt8]
            let message: ServerMessage
            do {
                (line, message) = try link.receive(timeout: 0.25)
            } catch .timedOut {
                continue
            } catch .malformed(let reason) {
                logger.debug("ignored a line from lectord", [("reason", reason)])
                continue
            } catch {
                // An unwatched link that lectord closed (a shorter idle timeout than the
                // keepalive's) comes back quietly; a watched one lost is worth a warning.
                if watching {
                    logger.once("events", .warning, "lost lectord's stream", [("error", "\(error)")])
                } else {
                    logger.debug("lectord closed the unwatched link; reconnecting", [("error", "\(error)")])
                }
                link.drop()
                return
            }
            _ = link.answered(byClass: message.messageClass)
            dispatch(line: line, message: message)
        }
        link.drop()
    }

    private func wantsWatch() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return !subscribers.isEmpty || demandUntil > Date()
    }

    private func keepalive() {
        condition.lock()
        defer { condition.unlock() }
        guard Date().timeIntervalSince(lastKeepalive) >= 10 else { return }
        lastKeepalive = Date()
        for (id, subscriber) in subscribers where !subscriber.stream.write(Array(": keepalive\n\n".utf8)) {
            subscribers[id] = nil
        }
    }

    private func dispatch(line: [UInt8], message: ServerMessage) {
        let name = message.messageClass
        guard Self.streamed.contains(name) else { return }
        let device = Self.device(of: message)
        condition.lock()
        defer { condition.unlock() }
        latest[name, default: [:]][device ?? ""] = line
        if name == "TEXT", let device {
            textCount[device, default: 0] += 1
            condition.broadcast()
        }
        let event = Self.event(line)
        for (id, subscriber) in subscribers {
            if let device, let wanted = subscriber.device, wanted != device { continue }
            if !subscriber.stream.write(event) { subscribers[id] = nil }
        }
    }

    /// The camera a stream message is about; nil for DEVICES (every camera).
    static func device(of message: ServerMessage) -> String? {
        switch message {
        case let .text(text): text.device
        case let .track(track): track.device
        case let .frame(frame): frame.device
        case let .code(code): code.device
        default: nil
        }
    }

    /// One Server-Sent Event carrying a protocol line.
    static func event(_ line: [UInt8]) -> [UInt8] { Array("data: ".utf8) + line + Array("\n\n".utf8) }
}
