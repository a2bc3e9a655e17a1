import Foundation
import LectorProtocol
import LectorSystem
import Synchronization

/// The reconnecting capture loop of one camera, V4L2 or libcamera alike (ustreamer's
/// `stream.c`).
///
/// Opens the ``CaptureDevice``, then grabs with a short timeout and hands the newest
/// valid frame of each round to the sink, zero-copy; older frames of the round count as
/// dropped, damaged ones as rejected. When the stream fails or stalls it releases
/// everything, reports the loss and reopens with a growing backoff until the camera is
/// back. Stop ends the loop within ``pollSliceMilliseconds``.
final class CaptureLoop: Sendable {
    /// The camera's name in messages and reports (its `--device`).
    let name: String
    private let logger: Logger
    /// Seconds without a frame before the camera counts as lost (`--stall-timeout-ms`,
    /// changed by SIGHUP through ``setStallTimeout(_:)``).
    private let stallSeconds: Atomic<Double>
    /// `Logger.once` keys: the registry is shared by every camera's logger.
    private var lostKey: String { "capture-lost \(name)" }
    private var rejectedKey: String { "capture-rejected \(name)" }
    /// The longest one grab waits, so stop is seen within this.
    static let pollSliceMilliseconds = 100
    /// The waits before each reopening, from the first.
    private let retryBackoff: RetryBackoff

    /// - Parameters: name: the camera's `--device`; stallTimeout: seconds without a frame
    ///   before it counts as lost; retryBackoff: the waits before reopening; logger: the
    ///   camera's logger (with its device).
    init(name: String, stallTimeout: Double, retryBackoff: RetryBackoff = RetryBackoff(), logger: Logger) {
        self.name = name
        self.logger = logger
        self.retryBackoff = retryBackoff
        stallSeconds = Atomic(stallTimeout)
    }

    /// Changes the stall timeout of the running and later streams.
    func setStallTimeout(_ seconds: Double) {
        stallSeconds.store(seconds, ordering: .relaxed)
    }

    /// Streams `device` into `sink`, reopening it whenever it is lost, until `stop`.
    func run<Device: CaptureDevice>(_ device: Device, into sink: any FrameSink, stop: StopSignal) {
        Self.raiseThreadPriority()
        var backoff = retryBackoff
        var losses = 0
        defer { sink.report(DeviceInfo(path: name, state: .idle)) }
        while !stop.isRaised {
            sink.report(DeviceInfo(path: name, state: .opening))
            let stream: Device.Stream
            do {
                stream = try device.open()
            } catch {
                report(error, losses: losses, sink: sink)
                if stop.wait(seconds: backoff.next()) { break }
                continue
            }
            announce(stream, losses: losses, sink: sink)
            do {
                try self.stream(stream, into: sink, stop: stop)
                stream.close()  // stopped
            } catch {
                stream.close()
                losses += 1
                // A camera that streamed for a while is retried quickly; one that fails
                // at once again and again, or floods, ever more slowly.
                if error.frames > 0, !error.cause.isHostile { backoff.reset() }
                report(error.cause, losses: losses, sink: sink)
                if stop.wait(seconds: backoff.next()) { break }
            }
        }
    }

    /// Why a stream ended, and how many frames it delivered before.
    struct StreamFailure<DeviceError: Error & CustomStringConvertible>: Error {
        var cause: CaptureLoss<DeviceError>
        var frames: Int
    }

    /// Grabs until stop (returns) or failure (throws, with the frames delivered so far).
    private func stream<Stream: CaptureStream>(_ stream: Stream, into sink: any FrameSink, stop: StopSignal)
        throws(StreamFailure<Stream.DeviceError>) {
        var frames = 0
        var lastFrame = MonotonicInstant.now()
        // A slow camera is not a stalled one: allow three frame intervals at least.
        let slowestInterval = 3 / max(stream.info.fps ?? 30, 0.1)
        while !stop.isRaised {
            let grab: CaptureGrab
            do {
                grab = try stream.grab(timeoutMilliseconds: Self.pollSliceMilliseconds)
            } catch {
                throw StreamFailure(cause: .failed(error), frames: frames)
            }
            deliver(grab, into: sink)
            if grab.frame != nil { frames += 1 }
            let now = MonotonicInstant.now()
            let stallTimeout = max(stallSeconds.load(ordering: .relaxed), slowestInterval)
            if grab.dequeuedAny {
                lastFrame = now
            } else if now.milliseconds(since: lastFrame) > stallTimeout * 1000 {
                throw StreamFailure(cause: .stalled(seconds: now.milliseconds(since: lastFrame) / 1000), frames: frames)
            }
        }
    }

    private func deliver(_ grab: CaptureGrab, into sink: any FrameSink) {
        for _ in 0..<grab.skipped {
            // Captured, then replaced by a newer frame of the same round: dropped.
            sink.skip()
        }
        for _ in 0..<grab.rejected {
            sink.reject()
            logger.once(rejectedKey, .warning, "damaged frame rejected: \(grab.damage ?? "unknown")")
        }
        if let frame = grab.frame { sink.deliver(frame) }
    }

    /// Reports and logs a stream that has started.
    private func announce<Stream: CaptureStream>(_ stream: Stream, losses: Int, sink: any FrameSink) {
        let info = stream.info
        sink.report(info)
        logger.clearOnce(lostKey)
        logger.clearOnce(rejectedKey)
        let format: [(String, String)] = [
            ("format", info.format ?? "unknown"), ("size", "\(info.width ?? 0)x\(info.height ?? 0)"),
            ("fps", info.fps.map { String(format: "%.2f", $0) } ?? "unknown"),
        ]
        logger.notice("camera streaming", format + stream.details + [("losses", "\(losses)")])
    }

    /// Reports a camera that cannot stream and logs the reason, once until it changes.
    private func report(_ error: some CustomStringConvertible, losses: Int, sink: any FrameSink) {
        var info = DeviceInfo(path: name, state: .lost)
        info.error = error.description
        sink.report(info)
        // The reason is part of the message: `once` repeats a line only when its message changes.
        // Never streamed yet: it is not available rather than lost.
        if losses == 0 {
            logger.once(lostKey, .error, "camera not available: \(error.description); retrying")
        } else {
            logger.once(lostKey, .error, "camera lost: \(error.description); retrying", [("losses", "\(losses)")])
        }
    }

    /// Asks the scheduler to run this (capture) thread ahead of the recognizer: a
    /// capture loop that wakes late hands over older frames, and the latency bound
    /// (one recognition plus one frame interval) assumes it wakes promptly. Best effort:
    /// without CAP_SYS_NICE (or systemd's `Nice=`/`LimitNICE=`) it stays as it is.
    private static func raiseThreadPriority() {
        try? Syscalls.setThreadPriority(-5)
    }
}

/// Why a camera stopped streaming: its own failure, or no frame in time.
/// A device error that may say the device misbehaved (a network camera that floods).
protocol HostileFailure {
    var isHostile: Bool { get }
}

enum CaptureLoss<DeviceError: Error & CustomStringConvertible>: Error, CustomStringConvertible {
    case failed(DeviceError)
    /// Nothing arrived for this many seconds.
    case stalled(seconds: Double)

    /// Whether the device misbehaved (a camera that floods): backed off like one that
    /// refuses, however many frames it gave first.
    var isHostile: Bool {
        if case let .failed(failure) = self, let failure = failure as? any HostileFailure { return failure.isHostile }
        return false
    }

    var description: String {
        switch self {
        case let .failed(failure): failure.description
        case let .stalled(seconds): "no frame for \(String(format: "%.1f", seconds)) s"
        }
    }
}
