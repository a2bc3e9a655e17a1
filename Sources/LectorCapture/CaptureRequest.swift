import LectorImaging
import LectorProtocol
import LectorSystem

/// What the user asked a camera's capture to negotiate (V4L2 sources), and how a
/// network camera is reached.
public struct CaptureRequest: Equatable, Sendable {
    public var format: PixelFormat?
    public var size: (width: Int, height: Int)?
    public var fps: Double?
    public var io = "auto"
    /// mmap buffers to ask the driver for (`--buffers`, default 4).
    public var buffers: Int?
    /// Seconds without a frame before the device counts as lost (`--stall-timeout-ms`).
    public var stallTimeout: Double?
    /// RTSP's transport (`--rtsp-transport`, default TCP).
    public var rtspTransport: RTSPTransport?
    /// A file that holds the network camera's password (`--url-password-file`).
    public var urlPasswordFile: String?
    /// A network camera's hardware decoding (`--hwdecode`, default off).
    public var hardwareDecoding: HardwareDecoding?

    public init() {}

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.format == rhs.format && lhs.fps == rhs.fps && lhs.io == rhs.io
            && lhs.buffers == rhs.buffers && lhs.stallTimeout == rhs.stallTimeout
            && lhs.rtspTransport == rhs.rtspTransport && lhs.urlPasswordFile == rhs.urlPasswordFile
            && lhs.hardwareDecoding == rhs.hardwareDecoding
            && lhs.size?.width == rhs.size?.width && lhs.size?.height == rhs.size?.height
    }
}
