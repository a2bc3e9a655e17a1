import Foundation
import LectorProtocol
import LectorSystem
import Synchronization

/// A V4L2 camera as a frame source: the capture loop of one device.
///
/// Opens and negotiates (``CaptureSession``), then polls with a short timeout and hands
/// the newest valid frame of each round to the mailbox, zero-copy. Older frames of the
/// round are given back at once and counted as dropped, damaged ones as rejected. When
/// the device is lost (ENODEV, EIO, a stall) it releases everything, reports the loss,
/// and reopens with a growing backoff until the device is back, re-resolving the path
/// (a by-id link then names the replugged camera). Stop ends the loop within 100 ms.
public final class V4L2Source: FrameSource {
    public let name: String
    public let settings: CaptureSettings
    /// What the camera said about its mounting when the source was made (probe).
    public let metadata: CameraMetadata
    private let logger: Logger
    /// Seconds without a frame before the device counts as lost: `settings.stallTimeout`
    /// until SIGHUP changes it (``setStallTimeout(_:)``).
    private let stallSeconds: Atomic<Double>
    /// `Logger.once` keys: the registry is shared by every camera's logger.
    private var lostKey: String { "capture-lost \(name)" }
    private var rejectedKey: String { "capture-rejected \(name)" }
    /// The longest one poll() waits, so stop is seen within this.
    static let pollSliceMilliseconds = 100

    /// Makes the source, probing the device once: a node that exists but cannot work
    /// as configured (not a capture node, `--format` not offered) is refused here, with
    /// the reason; a node that does not exist yet is waited for when running.
    /// - Throws: `CaptureError` for a configuration error.
    public init(settings: CaptureSettings, logger: Logger) throws(CaptureError) {
        name = settings.path
        self.settings = settings
        stallSeconds = Atomic(settings.stallTimeout)
        self.logger = logger.with("device", settings.path)
        var metadata = CameraMetadata()
        do throws(CaptureError) {
            let probe = try CaptureSession.openAndDescribe(settings)
            defer { probe.device.close() }
            do throws(FormatNegotiation.Failure) {
                _ = try FormatNegotiation.choose(from: probe.offers, format: settings.format, size: settings.size, fps: settings.fps)
            } catch {
                throw CaptureError.negotiation(error)
            }
            metadata = (try? CameraMetadata(device: probe.device)) ?? CameraMetadata()
        } catch where error.isConfigurationError {
            throw error
        } catch {
            self.logger.warning("camera not available yet; waiting for it", [("reason", error.description)])
        }
        self.metadata = metadata
    }

    /// Changes the stall timeout of the running and later streams (SIGHUP); nil: the default.
    public func setStallTimeout(_ seconds: Double?) {
        stallSeconds.store(seconds ?? CaptureSettings(path: name).stallTimeout, ordering: .relaxed)
    }

    public func run(into sink: any FrameSink, stop: StopSignal) throws {
        Self.raiseThreadPriority()
        var backoff = RetryBackoff()
        var losses = 0
        defer { sink.report(DeviceInfo(path: name, state: .idle)) }
        while !stop.isRaised {
            sink.report(DeviceInfo(path: name, state: .opening))
            let session: CaptureSession
            do {
                session = try CaptureSession(settings: settings, logger: logger)
            } catch {
                report(error, losses: losses, sink: sink)
                if stop.wait(seconds: backoff.next()) { break }
                continue
            }
            sink.report(info(of: session))
            logger.clearOnce(lostKey)
            logger.clearOnce(rejectedKey)
            logger.notice("camera streaming", [
                ("format", session.format.fourcc), ("size", "\(session.captureFormat.width)x\(session.captureFormat.height)"),
                ("fps", session.fps.map { String(format: "%.2f", $0) } ?? "unknown"), ("io", session.mode.rawValue),
                ("driver", session.capabilities.driver), ("card", session.capabilities.card), ("losses", "\(losses)"),
            ])
            do {
                try stream(session, into: sink, stop: stop)
                session.close()  // stopped
            } catch {
                session.close()
                losses += 1
                // A device that streamed for a while is retried quickly; one that fails
                // at once again and again, ever more slowly.
                if error.frames > 0 { backoff.reset() }
                report(error.cause, losses: losses, sink: sink)
                if stop.wait(seconds: backoff.next()) { break }
            }
        }
    }

    /// A streaming failure and how many frames the session delivered before it.
    struct StreamFailure: Error {
        var cause: CaptureError
        var frames: Int
    }

    /// Grabs until stop (returns) or failure (throws, with the frames delivered so far).
    private func stream(_ session: CaptureSession, into sink: FrameSink, stop: StopSignal) throws(StreamFailure) {
        var frames = 0
        var lastFrame = MonotonicInstant.now()
        // A slow camera is not a stalled one: allow three frame intervals at least.
        let slowestInterval = 3 / max(session.fps ?? 30, 0.1)
        while !stop.isRaised {
            let stallTimeout = max(stallSeconds.load(ordering: .relaxed), slowestInterval)
            let grab: CaptureSession.Grab
            do {
                grab = try session.grab(timeoutMilliseconds: Self.pollSliceMilliseconds)
            } catch {
                throw StreamFailure(cause: error, frames: frames)
            }
            for _ in 0..<grab.skipped {
                // Captured, then replaced by a newer frame of the same round: dropped.
                sink.skip()
            }
            for _ in 0..<grab.rejected {
                sink.reject()
                logger.once(rejectedKey, .warning, "damaged frame rejected (driver error flag, short buffer, or broken JPEG)")
            }
            if let frame = grab.frame {
                frames += 1
                sink.deliver(frame)
            }
            let now = MonotonicInstant.now()
            if grab.dequeuedAny {
                lastFrame = now
            } else if now.milliseconds(since: lastFrame) > stallTimeout * 1000 {
                throw StreamFailure(cause: .stalled(seconds: now.milliseconds(since: lastFrame) / 1000), frames: frames)
            }
        }
    }

    /// Asks the scheduler to run this (capture) thread ahead of the recognizer: a
    /// capture loop that wakes late hands over older frames, and the latency bound
    /// (one recognition plus one frame interval) assumes it wakes promptly. Best effort:
    /// without CAP_SYS_NICE (or systemd's `Nice=`/`LimitNICE=`) it stays as it is.
    private static func raiseThreadPriority() {
        try? Syscalls.setThreadPriority(-5)
    }

    /// A device node that does not exist now.
    public var absence: String? { Syscalls.fileStatus(settings.path) == nil ? "\(settings.path) does not exist" : nil }

    /// Reports a lost device and logs the reason, once until it changes.
    private func report(_ error: CaptureError, losses: Int, sink: FrameSink) {
        var info = DeviceInfo(path: name, state: .lost)
        info.error = error.description
        sink.report(info)
        // The reason is part of the message: `once` repeats a line only when its message changes.
        // Never opened yet: it is not available rather than lost.
        if losses == 0 {
            logger.once(lostKey, .error, "camera not available: \(error.description); retrying")
        } else {
            logger.once(lostKey, .error, "camera lost: \(error.description); retrying", [("losses", "\(losses)")])
        }
    }

    private func info(of session: CaptureSession) -> DeviceInfo {
        var info = DeviceInfo(path: name, state: .streaming, name: session.capabilities.card)
        info.driver = session.capabilities.driver
        info.card = session.capabilities.card
        info.bus = session.capabilities.bus
        info.format = session.format.fourcc
        info.width = session.captureFormat.width
        info.height = session.captureFormat.height
        info.fps = session.fps
        return info
    }

    /// The orientation to start with: what the user said over what the camera says.
    public func orientation(overriding flags: OrientationSettings) -> OrientationSettings {
        metadata.defaults(under: flags)
    }
}
