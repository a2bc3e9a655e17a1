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
        case let .network(url):
            return NetworkSource(settings: try networkSettings(url, request: spec.capture), logger: logger)
        }
    }

    /// A network camera's settings, its password read from `url_password_file` now, so
    /// a file that cannot be read stops lectord at start with the reason.
    static func networkSettings(_ url: NetworkCameraURL, request: CaptureRequest) throws(SourceError) -> NetworkSettings {
        var settings = NetworkSettings(url: url)
        settings.fps = request.fps
        if let transport = request.rtspTransport { settings.transport = transport }
        if let hardware = request.hardwareDecoding { settings.hardwareDecoding = hardware }
        if let timeout = request.stallTimeout { settings.stallTimeout = timeout }
        if let file = request.urlPasswordFile {
            guard url.hasUser else {
                throw SourceError("url_password_file \(file): the URL \(url) names no user (write it as scheme://USER@HOST/...)")
            }
            let text: String?
            do {
                text = try RegularFile.readText(file, maximumBytes: 4096)
            } catch {
                throw SourceError("url_password_file: \(error)")
            }
            guard let password = text?.split(separator: "\n", omittingEmptySubsequences: false).first
                .map({ $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }), !password.isEmpty else {
                throw SourceError("url_password_file \(file) holds no password (its first line is empty)")
            }
            settings.password = password
        }
        return settings
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
