import LectorImaging
import LectorProtocol
import LectorSystem

/// How one camera is captured: the configuration, fixed for the camera's life (the
/// runtime state lives in ``CaptureSession``).
public struct CaptureSettings: Sendable {
    /// Which I/O path `--io` asked for.
    public enum IOChoice: String, Sendable, CaseIterable {
        /// Direct when a format the recognizer reads natively exists, else libv4l2.
        case auto
        case direct
        case libv4l2
    }

    /// The node: /dev/videoN, /dev/v4l/by-id/…, /dev/v4l/by-path/… (resolved at every open).
    public var path: String
    public var format: PixelFormat?
    public var size: (width: Int, height: Int)?
    public var fps: Double?
    public var io: IOChoice = .auto
    /// mmap buffers to ask for: one being filled, one waiting in the mailbox, one being
    /// read, one spare.
    public var bufferCount = 4
    /// A device that delivers nothing for this long is treated as lost.
    public var stallTimeout: Double = 3
    /// The waits before reopening a camera that is not there or was lost.
    public var retryBackoff = RetryBackoff()
    /// The system calls for each I/O path (tests substitute fakes here).
    public var syscalls: @Sendable (V4L2IOMode) -> any V4L2Syscalls = { $0.syscalls }

    public init(path: String) { self.path = path }

    /// The settings `lectord`'s flags ask for.
    public init(path: String, request: CaptureRequest) {
        self.path = path
        format = request.format
        size = request.size
        fps = request.fps
        io = IOChoice(rawValue: request.io) ?? .auto
        if let buffers = request.buffers { bufferCount = buffers }
        if let timeout = request.stallTimeout { stallTimeout = timeout }
    }
}
