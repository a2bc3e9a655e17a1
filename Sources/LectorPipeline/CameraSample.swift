import LectorProtocol
import LectorSystem

/// What the service supervisor samples of one camera at one moment.
public struct CameraSample: Equatable, Sendable {
    public var name: String
    public var state: CameraState
    /// Frames the source has delivered so far (``FrameCounters/Snapshot/captured``).
    public var captured: Int
    /// Frames recognized so far (``FrameCounters/Snapshot/recognized``).
    public var recognized: Int
    /// Captured frames per second over the recent window (``FrameRateMeter``).
    public var fps: Double
    /// Recognized frames per second over the recent window.
    public var recognizedPerSecond: Double
    /// Median capture-to-publish latency, when frames were recognized.
    public var latencyMilliseconds: Double?
    /// Why the camera is lost, when it is.
    public var error: String?

    public init(name: String, state: CameraState, captured: Int, recognized: Int = 0, fps: Double = 0,
                recognizedPerSecond: Double = 0, latencyMilliseconds: Double? = nil, error: String? = nil) {
        self.name = name
        self.state = state
        self.captured = captured
        self.recognized = recognized
        self.fps = fps
        self.recognizedPerSecond = recognizedPerSecond
        self.latencyMilliseconds = latencyMilliseconds
        self.error = error
    }
}
