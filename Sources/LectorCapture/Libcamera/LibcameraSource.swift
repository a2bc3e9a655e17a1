import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem

/// A libcamera camera as a frame source (`--device libcamera:ID`), streamed by the
/// reconnecting ``CaptureLoop`` one ``LibcameraStream`` at a time: V4L2Source's rules
/// (newest frame only, losses, backoff, stalls, stop within 100 ms), the same loop.
public final class LibcameraSource: FrameSource, CaptureDevice {
    /// The prefix of `--device` that names a libcamera camera.
    public static let devicePrefix = "libcamera:"

    public let name: String
    /// libcamera's id, or the index of the camera ("0" the first).
    public let cameraID: String
    public let settings: CaptureSettings
    /// What the camera said about its mounting when the source was made.
    public let metadata: CameraMetadata
    private let loop: CaptureLoop

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
        let logger = logger.with("device", settings.path)
        loop = CaptureLoop(name: settings.path, stallTimeout: settings.stallTimeout, retryBackoff: settings.retryBackoff, logger: logger)
        var metadata = CameraMetadata()
        do {
            metadata = try LibcameraCamera.describe(id: cameraID).metadata
        } catch {
            logger.warning("camera not available yet; waiting for it", [("reason", error.description)])
        }
        self.metadata = metadata
    }

    /// Changes the stall timeout (SIGHUP); nil: the default.
    public func setStallTimeout(_ seconds: Double?) {
        loop.setStallTimeout(seconds ?? CaptureSettings(path: name).stallTimeout)
    }

    /// The orientation to start with: what the user said over what the camera says.
    public func orientation(overriding flags: OrientationSettings) -> OrientationSettings {
        metadata.defaults(under: flags)
    }

    public func run(into sink: any FrameSink, stop: StopSignal) throws {
        loop.run(self, into: sink, stop: stop)
    }

    /// Opens and configures the camera, starts it and queues every request.
    func open() throws(LibcameraError) -> LibcameraStream {
        let camera = try LibcameraCamera(id: cameraID, format: settings.format, size: settings.size, fps: settings.fps,
                                         buffers: settings.bufferCount)
        return LibcameraStream(camera: camera, path: name)
    }
}
