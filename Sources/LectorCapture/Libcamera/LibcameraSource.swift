import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem
import Synchronization

/// A libcamera camera as a frame source (`--device libcamera:ID`): the capture loop of
/// one camera, with V4L2Source's rules.
///
/// Opens and starts the camera with every request queued, then takes completed requests
/// in rounds: the newest valid one of a round is handed to the mailbox zero-copy, older
/// ones are queued again at once and counted as dropped, damaged ones as rejected. When
/// the camera disconnects, stalls or refuses a request, everything is released, the loss
/// reported, and the camera reopened with a growing backoff. Stop ends the loop within
/// 100 ms.
public final class LibcameraSource: FrameSource {
    /// The prefix of `--device` that names a libcamera camera.
    public static let devicePrefix = "libcamera:"

    public let name: String
    /// libcamera's id, or the index of the camera ("0" the first).
    public let cameraID: String
    public let settings: CaptureSettings
    /// What the camera said about its mounting when the source was made.
    public let metadata: CameraMetadata
    private let logger: Logger
    private let stallSeconds: Atomic<Double>
    private var lostKey: String { "capture-lost \(name)" }
    private var rejectedKey: String { "capture-rejected \(name)" }
    static let pollSliceMilliseconds = 100

    /// Whether `path` names a libcamera camera.
    public static func names(_ path: String) -> Bool { path.hasPrefix(devicePrefix) }

    /// Whether this lectord has libcamera support built in.
    public static var isBuiltIn: Bool { LibcameraCamera.isBuiltIn }

    /// Every camera libcamera finds, as `--device` values (`libcamera:ID`).
    public static func devices() throws(LibcameraError) -> [String] {
        try LibcameraCamera.cameraIDs().map { devicePrefix + $0 }
    }

    /// Makes the source for `settings.path` (`libcamera:ID`) and reads the camera's
    /// mounting. A camera that is not there yet is waited for when running.
    /// - Throws: `.unavailable` when this lectord was built without libcamera.
    public init(settings: CaptureSettings, logger: Logger) throws(LibcameraError) {
        guard LibcameraCamera.isBuiltIn else { throw .unavailable }
        name = settings.path
        cameraID = String(settings.path.dropFirst(Self.devicePrefix.count))
        self.settings = settings
        stallSeconds = Atomic(settings.stallTimeout)
        self.logger = logger.with("device", settings.path)
        var metadata = CameraMetadata()
        do {
            metadata = try LibcameraCamera.describe(id: cameraID).metadata
        } catch {
            self.logger.warning("camera not available yet; waiting for it", [("reason", error.description)])
        }
        self.metadata = metadata
    }

    /// Changes the stall timeout (SIGHUP); nil: the default.
    public func setStallTimeout(_ seconds: Double?) {
        stallSeconds.store(seconds ?? CaptureSettings(path: name).stallTimeout, ordering: .relaxed)
    }

    /// The orientation to start with: what the user said over what the camera says.
    public func orientation(overriding flags: OrientationSettings) -> OrientationSettings {
        metadata.defaults(under: flags)
    }

    public func run(into sink: any FrameSink, stop: StopSignal) throws {
        var backoff = RetryBackoff()
        var losses = 0
        defer { sink.report(DeviceInfo(path: name, state: .idle)) }
        while !stop.isRaised {
            sink.report(DeviceInfo(path: name, state: .opening))
            let camera: LibcameraCamera
            do {
                camera = try LibcameraCamera(id: cameraID, format: settings.format, size: settings.size, fps: settings.fps,
                                             buffers: settings.bufferCount)
            } catch {
                report(error, losses: losses, sink: sink)
                if stop.wait(seconds: backoff.next()) { break }
                continue
            }
            let pool = LibcameraRequestPool(camera: camera)
            sink.report(info(of: camera.info))
            logger.clearOnce(lostKey)
            logger.clearOnce(rejectedKey)
            logger.notice("camera streaming", [
                ("format", camera.info.format.fourcc), ("size", "\(camera.info.width)x\(camera.info.height)"),
                ("id", camera.info.id), ("model", camera.info.model), ("buffers", "\(camera.info.bufferCount)"),
                ("losses", "\(losses)"),
            ])
            do {
                try stream(pool, into: sink, stop: stop)
                pool.retire()
            } catch {
                pool.retire()
                losses += 1
                if error.frames > 0 { backoff.reset() }
                report(error.cause, losses: losses, sink: sink)
                if stop.wait(seconds: backoff.next()) { break }
            }
        }
    }

    struct StreamFailure: Error {
        var cause: LibcameraError
        var frames: Int
    }

    /// Takes rounds of completed requests until stop (returns) or failure (throws).
    private func stream(_ pool: LibcameraRequestPool, into sink: FrameSink, stop: StopSignal) throws(StreamFailure) {
        let info = pool.camera.info
        let format = info.format
        let bytesPerLine = format.isCompressed ? 0 : max(info.bytesPerLine, format.minimumBytesPerLine(width: info.width))
        let minimumBytes = format.isCompressed ? 4 : format.frameSize(width: info.width, height: info.height, bytesPerLine: bytesPerLine) ?? 0
        var frames = 0
        var lastFrame = MonotonicInstant.now()
        let slowestInterval = 3 / max(info.fps ?? 30, 0.1)
        while !stop.isRaised {
            if let failure = pool.takeQueueFailure() { throw StreamFailure(cause: failure, frames: frames) }
            var round: [LibcameraCamera.Completed] = []
            var wait = Self.pollSliceMilliseconds
            collect: while true {
                switch pool.camera.next(timeoutMilliseconds: wait) {
                case let .frame(completed):
                    round.append(completed)
                    wait = 0  // the rest of this round: what has completed already
                case .timedOut:
                    break collect
                case .disconnected:
                    for completed in round { pool.completed(index: completed.index) }
                    throw StreamFailure(cause: .disconnected, frames: frames)
                }
            }
            var newest: LibcameraCamera.Completed?
            do throws(LibcameraError) {
                for var completed in round {
                    pool.completed(index: completed.index)
                    let bytes = pool.camera.bytes(index: completed.index)
                    if completed.bytesUsed == 0 || completed.bytesUsed > bytes.count { completed.bytesUsed = bytes.count }
                    let damage: String? = if completed.failed {
                        "libcamera reported an error or cancelled the request"
                    } else if completed.bytesUsed < minimumBytes {
                        "short buffer (\(completed.bytesUsed) of \(minimumBytes) bytes)"
                    } else if format.isCompressed, !LumaExtractor.hasJPEGMarkers(UnsafeRawBufferPointer(rebasing: bytes.prefix(completed.bytesUsed))) {
                        "JPEG without start and end markers"
                    } else {
                        nil
                    }
                    if let damage {
                        try pool.requeue(index: completed.index)
                        sink.reject()
                        logger.once(rejectedKey, .warning, "damaged frame rejected: \(damage)")
                        continue
                    }
                    if let older = newest {
                        try pool.requeue(index: older.index)
                        sink.skip()
                    }
                    newest = completed
                }
            } catch {
                throw StreamFailure(cause: error, frames: frames)
            }
            if let newest {
                frames += 1
                sink.deliver(Frame(format: format, width: info.width, height: info.height, bytesPerLine: bytesPerLine,
                                   bytesUsed: newest.bytesUsed, sequence: newest.sequence, timestamp: newest.timestamp,
                                   buffer: pool.lend(index: newest.index)))
            }
            let now = MonotonicInstant.now()
            if !round.isEmpty {
                lastFrame = now
            } else if now.milliseconds(since: lastFrame) > max(stallSeconds.load(ordering: .relaxed), slowestInterval) * 1000 {
                throw StreamFailure(cause: .stalled(seconds: now.milliseconds(since: lastFrame) / 1000), frames: frames)
            }
        }
    }

    private func report(_ error: LibcameraError, losses: Int, sink: FrameSink) {
        var info = DeviceInfo(path: name, state: .lost)
        info.error = error.description
        sink.report(info)
        logger.once(lostKey, .error, "camera lost: \(error.description); retrying", [("losses", "\(losses)")])
    }

    private func info(of camera: LibcameraCamera.Info) -> DeviceInfo {
        var info = DeviceInfo(path: name, state: .streaming, name: camera.model.isEmpty ? camera.id : camera.model)
        info.driver = "libcamera"
        info.card = camera.model.isEmpty ? nil : camera.model
        info.bus = camera.id
        info.format = camera.format.fourcc
        info.width = camera.width
        info.height = camera.height
        info.fps = camera.fps
        return info
    }
}
