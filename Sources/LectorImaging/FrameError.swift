import LectorProtocol
import LectorSystem

/// Why a frame could not be turned into an image. Such a frame is counted as rejected
/// and skipped; the stream goes on.
public enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The buffer holds fewer bytes than the format and size need.
    case truncated(format: PixelFormat, needed: Int, got: Int)
    /// `bytesperline` is smaller than a row of the format needs.
    case badStride(format: PixelFormat, bytesPerLine: Int, minimum: Int)
    /// Width or height is zero, negative, or absurd.
    case badSize(width: Int, height: Int)
    /// The compressed data could not be decoded.
    case corrupt(format: PixelFormat, reason: String)
    /// The frame would cost more than ``FrameLimits`` allow; nothing was decoded.
    case tooLarge(format: PixelFormat, reason: String)

    public var description: String {
        switch self {
        case let .truncated(format, needed, got):
            "truncated \(format) frame: \(got) bytes, needs \(needed)"
        case let .badStride(format, bytesPerLine, minimum):
            "\(format) bytesperline \(bytesPerLine) is below the minimum \(minimum)"
        case let .badSize(width, height):
            "invalid frame size \(width)x\(height)"
        case let .corrupt(format, reason):
            "corrupt \(format) frame: \(reason)"
        case let .tooLarge(format, reason):
            "\(format) frame too large: \(reason)"
        }
    }
}
