import Synchronization

/// What the recognizer side tells a source about the scene: whether it is still (the
/// change gate finds nothing new in it). Owned by the source (capture does not depend on
/// the pipeline); the camera's recognition loop sets it. A network camera decodes key
/// frames only while the scene is still (docs/cameras.md).
public final class StillSceneHint: Sendable {
    private let still = Atomic<Bool>(false)

    public init() {}

    /// Whether the scene is still now.
    public var isStill: Bool { still.load(ordering: .relaxed) }

    /// The gate found the frame unchanged (`true`) or read it (`false`).
    public func set(still value: Bool) {
        if still.load(ordering: .relaxed) != value { still.store(value, ordering: .relaxed) }
    }
}
