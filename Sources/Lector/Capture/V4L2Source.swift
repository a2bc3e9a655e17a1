import Foundation

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
    /// The longest one poll() waits, so stop is seen within this.
    static let pollSliceMilliseconds = 100

    /// Makes the source, probing the device once: a node that exists but cannot work
    /// as configured (not a capture node, `--format` not offered) is refused here, with
    /// the reason; a node that does not exist yet is waited for when running.
    /// - Throws: `CaptureError` for a configuration error.
    public init(settings: CaptureSettings, logger: Logger) throws(CaptureError) {
        name = settings.path
        self.settings = settings
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

    public func run(into sink: FrameSink, stop: StopSignal) throws {
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
            logger.clearOnce("device")
            logger.notice("camera streaming", [
                ("format", session.format.fourcc), ("size", "\(session.captureFormat.width)x\(session.captureFormat.height)"),
                ("fps", session.fps.map { String(format: "%.2f", $0) } ?? "unknown"), ("io", session.mode.rawValue),
                ("driver", session.capabilities.driver), ("card", session.capabilities.card), ("losses", "\(losses)"),
            ])
            do {
                let streamedFrames = try stream(session, into: sink, stop: stop)
                session.close()
                if stop.isRaised { break }
                _ = streamedFrames
            } catch {
                let frames = error.frames
                session.close()
                losses += 1
                if frames > 0 { backoff.reset() }
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

    /// Grabs until stop (returns) or failure (throws).
    /// - Returns: the number of frames the session delivered.
    private func stream(_ session: CaptureSession, into sink: FrameSink, stop: StopSignal) throws(StreamFailure) -> Int {
        var frames = 0
        var lastFrame = MonotonicInstant.now()
        // A slow camera is not a stalled one: allow three frame intervals at least.
        let stallTimeout = max(settings.stallTimeout, 3 / max(session.fps ?? 30, 0.1))
        while !stop.isRaised {
            let grab: CaptureSession.Grab
            do {
                grab = try session.grab(timeoutMilliseconds: Self.pollSliceMilliseconds)
            } catch {
                throw StreamFailure(cause: error, frames: frames)
            }
            for _ in 0..<grab.skipped {
                // Captured, then replaced by a newer frame of the same round: dropped.
                sink.counters.countCaptured()
                sink.counters.countDropped()
            }
            for _ in 0..<grab.rejected {
                sink.reject()
                logger.once("frame", .warning, "damaged frame rejected (driver error flag, short buffer, or broken JPEG)")
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
        return frames
    }

    /// Reports a lost device and logs the reason, once until it changes.
    private func report(_ error: CaptureError, losses: Int, sink: FrameSink) {
        var info = DeviceInfo(path: name, state: .lost)
        info.error = error.description
        sink.report(info)
        logger.once("device", .error, "camera lost; retrying", [("reason", error.description), ("losses", "\(losses)")])
    }

    private func info(of session: CaptureSession) -> DeviceInfo {
        var info = DeviceInfo(path: name, state: .streaming, name: session.capabilities.card)
        info.driver = session.capabilities.driver
        info.card = session.capabilities.card
        info.bus = session.capabilities.bus
        info.format = session.format
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
