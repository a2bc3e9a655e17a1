import CV4L2
import LectorProtocol
import LectorSystem

/// A V4L2 pixel format that Lector can turn into luma (8-bit grayscale).
///
/// The raw value is the V4L2 fourcc code, so a `PixelFormat` round-trips through
/// `struct v4l2_pix_format.pixelformat` unchanged.
public enum PixelFormat: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case grey, yuyv, uyvy, yvyu, vyuy
    case nv12, nv21, nv16, nv61, yu12, yv12
    case rgb24, bgr24, xrgb32, argb32, xbgr32, abgr32
    case mjpeg, jpeg

    // The raw values are the kernel's own codes, read from the CV4L2 target.
    public var rawValue: UInt32 {
        switch self {
        case .grey: LECTOR_PIX_FMT_GREY
        case .yuyv: LECTOR_PIX_FMT_YUYV
        case .uyvy: LECTOR_PIX_FMT_UYVY
        case .yvyu: LECTOR_PIX_FMT_YVYU
        case .vyuy: LECTOR_PIX_FMT_VYUY
        case .nv12: LECTOR_PIX_FMT_NV12
        case .nv21: LECTOR_PIX_FMT_NV21
        case .nv16: LECTOR_PIX_FMT_NV16
        case .nv61: LECTOR_PIX_FMT_NV61
        case .yu12: LECTOR_PIX_FMT_YUV420
        case .yv12: LECTOR_PIX_FMT_YVU420
        case .rgb24: LECTOR_PIX_FMT_RGB24
        case .bgr24: LECTOR_PIX_FMT_BGR24
        case .xrgb32: LECTOR_PIX_FMT_XRGB32
        case .argb32: LECTOR_PIX_FMT_ARGB32
        case .xbgr32: LECTOR_PIX_FMT_XBGR32
        case .abgr32: LECTOR_PIX_FMT_ABGR32
        case .mjpeg: LECTOR_PIX_FMT_MJPEG
        case .jpeg: LECTOR_PIX_FMT_JPEG
        }
    }

    public init?(rawValue: UInt32) {
        guard let format = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = format
    }

    /// Parses a fourcc such as `YUYV`, `MJPG`, `YU12`, or a friendly alias (`I420`, `MJPEG`).
    public init?(name: String) {
        let upper = name.uppercased()
        switch upper {
        case "I420": self = .yu12; return
        case "MJPEG": self = .mjpeg; return
        case "GRAY": self = .grey; return
        default: break
        }
        guard let format = Self.allCases.first(where: { $0.fourcc == upper }) else { return nil }
        self = format
    }

    /// The four characters of the fourcc code, e.g. `YUYV`.
    public var fourcc: String { Self.fourccString(rawValue) }

    public var description: String { fourcc }

    /// Renders any fourcc code as its four characters (non-printable bytes as `?`).
    public static func fourccString(_ code: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: code >> (8 * $0)) }
        return String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    /// True for compressed formats whose size varies per frame.
    public var isCompressed: Bool { self == .mjpeg || self == .jpeg }

    /// Relative cost of getting luma out of one frame: lower is cheaper. Capture
    /// negotiation prefers cheap formats.
    public var lumaCost: Int {
        switch self {
        case .grey: 0
        case .nv12, .nv21, .nv16, .nv61, .yu12, .yv12: 1
        case .yuyv, .uyvy, .yvyu, .vyuy: 2
        case .rgb24, .bgr24, .xrgb32, .argb32, .xbgr32, .abgr32: 3
        case .mjpeg, .jpeg: 4
        }
    }

    /// The smallest `bytesperline` for a frame of `width` pixels (luma plane for planar formats).
    public func minimumBytesPerLine(width: Int) -> Int {
        switch self {
        case .grey, .nv12, .nv21, .nv16, .nv61, .yu12, .yv12: width
        case .yuyv, .uyvy, .yvyu, .vyuy: 4 * ((width + 1) / 2)  // 4 bytes per 2-pixel macropixel
        case .rgb24, .bgr24: 3 * width
        case .xrgb32, .argb32, .xbgr32, .abgr32: 4 * width
        case .mjpeg, .jpeg: 0
        }
    }

    /// Bytes a complete uncompressed frame occupies, given its luma `bytesPerLine`;
    /// nil for compressed formats.
    public func frameSize(width: Int, height: Int, bytesPerLine: Int) -> Int? {
        let luma = bytesPerLine * height
        let halfHeight = (height + 1) / 2
        switch self {
        case .grey, .yuyv, .uyvy, .yvyu, .vyuy, .rgb24, .bgr24, .xrgb32, .argb32, .xbgr32, .abgr32:
            return luma
        case .nv12, .nv21:  // interleaved CbCr plane, half height, same stride
            return luma + bytesPerLine * halfHeight
        case .nv16, .nv61:  // interleaved CbCr plane, full height
            return 2 * luma
        case .yu12, .yv12:  // two chroma planes, half stride, half height
            return luma + 2 * ((bytesPerLine + 1) / 2) * halfHeight
        case .mjpeg, .jpeg:
            return nil
        }
    }
}
