import LectorProtocol

/// The camera options of one place: the command line's (they apply to every camera) or
/// one `[camera]` section's. ``cameras()`` makes the cameras they describe.
public struct CameraSettings: Equatable, Sendable {
    /// `--demo`, `--replay`, `--device`: a camera each (a `[camera]` has exactly one).
    public var sources: [SourceSpec] = []
    /// `--loop`: replays start again after their last frame.
    public var loop = false
    /// `--replay-format`: the pixel format of a raw frame file.
    public var replayFormat: PixelFormat?
    /// Everything else; its source is ignored (``sources`` name them).
    public var spec = CameraSpec(source: .demo)

    public init() {}

    /// The settings that make `camera` (for comparing two configurations): a replay's
    /// pacing, loop and raw format come back from ``spec``, ``loop`` and ``replayFormat``.
    public init(_ camera: CameraSpec) {
        sources = [camera.source]
        spec = camera
        if case let .replay(replay) = camera.source {
            sources = [.replay(ReplayOptions(path: replay.path))]
            loop = replay.loop
            replayFormat = replay.rawFormat
        }
    }

    /// One camera per source.
    public func cameras() -> [CameraSpec] {
        sources.map { spec.with(source: $0, loop: loop, rawFormat: replayFormat) }
    }
}
