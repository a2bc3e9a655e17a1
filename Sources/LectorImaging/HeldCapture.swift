import LectorProtocol
import LectorSystem
import Synchronization

/// A captured frame kept borrowed (its buffer not yet given back) while the frame it
/// became is read, so that an accepted MATCH's evidence shows what the camera saw, in
/// colour. Nothing is copied or converted while it is held: only ``colorSource()``, called
/// for a frame whose rules accepted a MATCH, copies its bytes. ``release()`` gives the
/// buffer back (once, from any thread); the last reference gives it back too.
public final class HeldCapture: Sendable {
    /// The frame as captured; valid until released.
    public let frame: Frame
    private let released = Atomic<Bool>(false)

    public init(_ frame: Frame) { self.frame = frame }

    deinit { release() }

    /// Gives the frame's buffer back to its source; later calls do nothing.
    public func release() {
        if !released.exchange(true, ordering: .acquiringAndReleasing) { frame.giveBack() }
    }

    /// What the evidence's colour is made from: the replayed image file's bytes, or a
    /// copy of the frame's bytes as captured. Call before ``release()``.
    public func colorSource() -> ColorSource {
        if let file = frame.buffer.imageFile { return .imageFile(file.bytes, path: file.path) }
        return .captured(CapturedFrame(frame))
    }
}

/// Where an accepted MATCH's colour comes from, handed to the evidence's writer, which
/// decodes it (off the recognition path).
public enum ColorSource: Sendable {
    /// The frame's bytes as the camera delivered them (any pixel format, MJPEG compressed).
    case captured(CapturedFrame)
    /// A replayed image file (PNG, TIFF, …), decoded again in colour.
    case imageFile([UInt8], path: String)

    /// The frame in colour (gray for a gray camera or a gray file), as captured (not turned).
    public func image(limits: FrameLimits = .standard) throws(FrameError) -> ColorImage {
        switch self {
        case let .captured(frame):
            return try ColorImage(frame, limits: limits)
        case let .imageFile(bytes, path):
            do {
                return try ImageFile.decodeColor(bytes, path: path, limits: limits)
            } catch {
                throw .corrupt(format: .rgb24, reason: error.description)
            }
        }
    }
}
