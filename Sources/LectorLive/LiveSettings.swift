import LectorProtocol
import LectorSystem

/// How a camera uses the stream's redundancy: frame stacking, change gating, line tracks.
public struct LiveSettings: Equatable, Sendable {
    /// Frames averaged at most (`--stack N`); nil: `--stack off`.
    public var stack: Int? = 16
    /// Skip recognizing unchanged frames while every track is settled (`--gate off`).
    public var gate = true
    /// Re-read a still scene at least this often, in seconds (`--refresh-s`).
    public var refreshSeconds = 10.0
    /// Line tracks: window, settle count, timeout (`--track-timeout-ms`).
    public var tracks = LineTracker.Settings()

    public init() {}

    /// The gate: a block of the stack's signature changed when its mean moved by more
    /// than this many gray levels…
    public static let gateLevel = 10
    /// …and the scene changed when this many blocks did.
    public static let gateBlocks = 2

    /// Largest `--stack` accepted.
    public static let maximumStack = 64

    /// Whether frames go through a ``FrameStacker`` on the capture side (stacking, or the
    /// gate's alignment and signature).
    public var usesStacker: Bool { stack != nil || gate }
}
