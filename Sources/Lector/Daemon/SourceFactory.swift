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
            return try ReplaySource(name: spec.name, options: options)
        case let .device(path):
            throw SourceError("cannot capture from \(path): V4L2 capture is not part of this build yet")
        }
    }
}
