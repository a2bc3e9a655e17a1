import LectorCapture
import LectorImaging
import LectorProtocol

/// The camera options of one place: the command line's (they apply to every camera) or
/// one `[camera]` section's. ``cameras()`` makes the cameras they describe.
public struct CameraSettings: Equatable, Sendable {
    /// `--demo`, `--replay`, `--device`: a camera each (a `[camera]` has exactly one).
    public var sources: [SourceSpec] = []
    /// The name of each source (`--name` after it, `[camera NAME]`), nil where none was given.
    public var labels: [String?] = []
    /// A name given before any source (a `[camera NAME]` header, or `name =` before
    /// `device =`): it goes to the next source.
    public var pendingLabel: String?
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
        labels = [camera.label]
        spec = camera
        if case let .replay(replay) = camera.source {
            sources = [.replay(ReplayOptions(path: replay.path))]
            loop = replay.loop
            replayFormat = replay.rawFormat
        }
    }

    /// One camera per source.
    public func cameras() -> [CameraSpec] {
        sources.enumerated().map { index, source in
            var camera = spec.with(source: source, loop: loop, rawFormat: replayFormat)
            camera.label = index < labels.count ? labels[index] : nil
            return camera
        }
    }

    /// Adds a source, named by a pending name if one was given.
    mutating func add(_ source: SourceSpec) {
        sources.append(source)
        labels.append(pendingLabel)
        pendingLabel = nil
    }

    /// Names the last source given (`--name`), or the next one when none was given yet.
    mutating func name(_ label: String) {
        if let last = labels.indices.last, labels[last] == nil, pendingLabel == nil {
            labels[last] = label
        } else {
            pendingLabel = label
        }
    }
}
