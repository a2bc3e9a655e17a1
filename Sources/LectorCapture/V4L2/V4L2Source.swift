import Foundation
import LectorProtocol
import LectorSystem

/// A V4L2 camera as a frame source: one device node, streamed by the reconnecting
/// ``CaptureLoop`` one ``CaptureSession`` at a time.
///
/// Each open re-resolves the path, so a by-id link names the replugged camera. The
/// loop's rules (newest frame only, losses, backoff, stalls, stop within 100 ms) are
/// the same for libcamera's cameras.
public final class V4L2Source: FrameSource, CaptureDevice {
    public let name: String
    public let settings: CaptureSettings
    /// What the camera said about its mounting when the source was made (probe).
    public let metadata: CameraMetadata
    private let logger: Logger
    private let loop: CaptureLoop

    /// Makes the source, probing the device once: a node that exists but cannot work
    /// as configured (not a capture node, `--format` not offered) is refused here, with
    /// the reason; a node that does not exist yet is waited for when running.
    /// - Throws: `CaptureError` for a configuration error.
    public init(settings: CaptureSettings, logger: Logger) throws(CaptureError) {
        name = settings.path
        self.settings = settings
        self.logger = logger.with("device", settings.path)
        loop = CaptureLoop(name: settings.path, stallTimeout: settings.stallTimeout, retryBackoff: settings.retryBackoff,
                           logger: self.logger)
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
        loop.setStallTimeout(seconds ?? CaptureSettings(path: name).stallTimeout)
    }

    public func run(into sink: any FrameSink, stop: StopSignal) throws {
        loop.run(self, into: sink, stop: stop)
    }

    /// Opens, negotiates, maps the buffers and starts streaming.
    func open() throws(CaptureError) -> CaptureSession {
        try CaptureSession(settings: settings, logger: logger)
    }

    /// A device node that does not exist now.
    public var absence: String? { Syscalls.fileStatus(settings.path) == nil ? "\(settings.path) does not exist" : nil }

    /// The orientation to start with: what the user said over what the camera says.
    public func orientation(overriding flags: OrientationSettings) -> OrientationSettings {
        metadata.defaults(under: flags)
    }
}
