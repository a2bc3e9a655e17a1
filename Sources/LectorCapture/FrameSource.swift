import LectorImaging
import LectorProtocol
import LectorSystem

/// Something that produces frames: a V4L2 camera, a replayed file, the demo.
public protocol FrameSource: AnyObject, Sendable {
    /// The device name used in messages (a path, `demo`, `replay`).
    var name: String { get }
    /// Produces frames into `sink` until `stop` is raised or the source ends.
    /// - Throws: when the source cannot start at all (a file that does not exist).
    func run(into sink: any FrameSink, stop: StopSignal) throws
    /// Why the source cannot be opened now, checked when asked (a camera not plugged
    /// in), or nil.
    var absence: String? { get }
    /// Whether the source waits for the recognizer to take each frame (a replay without
    /// `--fps`: lossless); such a source gets one recognizer.
    var isPacedByRecognizer: Bool { get }
    /// Told whether the scene is still, when the source can save work then (a network
    /// camera decodes key frames only); nil: the source does not listen.
    var sceneHint: StillSceneHint? { get }
}

extension FrameSource {
    public var absence: String? { nil }
    public var isPacedByRecognizer: Bool { false }
    public var sceneHint: StillSceneHint? { nil }
}

/// Where a source delivers its frames, and whom it tells what it is doing. A camera
/// implements it (its mailbox, counters, stack and recorder); a test or a benchmark may
/// implement it too.
public protocol FrameSink: Sendable {
    /// Reports what the source now is (opening, streaming with format and size, lost).
    func report(_ info: DeviceInfo)
    /// Hands over a frame: it replaces any frame the recognizer has not taken yet.
    func deliver(_ frame: Frame)
    /// Counts a frame that arrived but failed validation before anyone saw it.
    func reject()
    /// Counts a frame that arrived but was replaced by a newer one of the same round
    /// before it was delivered (captured, then dropped).
    func skip()
    /// Waits until the recognizer has taken the last frame (lossless pacing).
    /// - Returns: false once the camera is shutting down.
    func waitForRoom() -> Bool
}
