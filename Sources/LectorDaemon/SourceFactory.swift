import LectorCapture
import LectorProtocol
import LectorSystem

/// Why a camera could not be set up.
public struct SourceError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Builds the frame source a ``CameraSpec`` names.
public enum SourceFactory {
    /// Frames per second of `--demo` when `--fps` is not given.
    public static let demoFramesPerSecond = 5.0

    public static func makeSource(for spec: CameraSpec, logger: Logger) throws -> any FrameSource {
        switch spec.source {
        case .demo:
            return try DemoFrames.source(fps: spec.capture.fps ?? demoFramesPerSecond, loop: true)
        case let .replay(options):
            return try ReplaySource(name: spec.sourceName, options: options, logger: logger)
        case let .device(path) where LibcameraSource.names(path):
            do {
                return try LibcameraSource(settings: CaptureSettings(path: path, request: spec.capture), logger: logger)
            } catch {
                throw SourceError("cannot capture from \(path): \(error)")
            }
        case let .device(path):
            do {
                return try V4L2Source(settings: CaptureSettings(path: path, request: spec.capture), logger: logger)
            } catch {
                throw SourceError("cannot capture from \(path): \(error)")
            }
        }
    }

    /// The orientation a camera starts with: the flags in `spec` over what the device
    /// says about its mounting (V4L2 camera orientation and sensor rotation controls, or
    /// libcamera's Location and Rotation properties).
    public static func orientation(for spec: CameraSpec, source: any FrameSource) -> OrientationSettings {
        if let camera = source as? V4L2Source { return camera.orientation(overriding: spec.orientation) }
        if let camera = source as? LibcameraSource { return camera.orientation(overriding: spec.orientation) }
        return spec.orientation
    }
}
