import LectorImaging
import LectorProtocol
import LectorSystem

/// A camera as the reconnecting ``CaptureLoop`` sees it: something that opens into a
/// stream. A V4L2 node and a libcamera camera each implement it in their folder.
protocol CaptureDevice: AnyObject {
    associatedtype Stream: CaptureStream
    /// Opens, negotiates and starts streaming.
    /// - Throws: why the camera cannot stream now (not there, busy, refused).
    func open() throws(Stream.DeviceError) -> Stream
}

/// One streaming run of a camera, from open to close (ustreamer's grab and close verbs).
/// Owner of everything the open took; used by the capture thread only, except for the
/// give-backs of lent frames.
protocol CaptureStream: AnyObject {
    associatedtype DeviceError: Error, CustomStringConvertible
    /// What is streaming: state `.streaming`, with the format, size and rate.
    var info: DeviceInfo { get }
    /// What the "camera streaming" log line adds after the format, size and rate.
    var details: [(String, String)] { get }
    /// Waits up to `timeoutMilliseconds` for frames, takes every one that has arrived,
    /// gives all but the newest valid one back at once and lends that one out.
    /// - Throws: when the camera fails (gone, disconnected, a buffer it refused).
    func grab(timeoutMilliseconds: Int) throws(DeviceError) -> CaptureGrab
    /// Stops streaming and releases the camera (once). Lent frames stay readable until
    /// they are given back.
    func close()
}

/// The outcome of one grab: the frame to deliver and what was thrown away on the way.
public struct CaptureGrab {
    /// The newest valid frame, lent to the caller (give it back, or post it).
    public var frame: Frame?
    /// Older valid frames taken in the same round and given back at once.
    public var skipped = 0
    /// Frames that failed the ``FrameCheck`` (already given back).
    public var rejected = 0
    /// Why the last rejected frame was damaged.
    public var damage: String?
    /// Whether anything arrived.
    public var dequeuedAny: Bool { frame != nil || skipped > 0 || rejected > 0 }

    public init() {}
}
