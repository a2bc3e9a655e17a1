import LectorImaging
import LectorProtocol
import LectorSystem

/// What a complete frame of one negotiated format and size looks like, and the check
/// every captured buffer passes before anyone sees it (ustreamer's
/// `_capture_is_buffer_valid`): the driver's error flag, a short buffer, a JPEG without
/// its start and end markers.
struct FrameCheck: Sendable {
    let format: PixelFormat
    let width: Int
    let height: Int
    /// Bytes from one row to the next as frames are read (0 for a compressed format).
    let bytesPerLine: Int
    /// The least bytes of a complete raw frame, or of any JPEG (SOI + EOI).
    let minimumBytes: Int

    /// - Parameters: stride: the row stride the driver reported (at least the format's minimum is used).
    init(format: PixelFormat, width: Int, height: Int, stride: Int) {
        self.format = format
        self.width = width
        self.height = height
        if format.isCompressed {
            bytesPerLine = 0
            minimumBytes = 4
        } else {
            bytesPerLine = max(stride, format.minimumBytesPerLine(width: width))
            minimumBytes = format.frameSize(width: width, height: height, bytesPerLine: bytesPerLine) ?? 0
        }
    }

    /// Why the buffer is not a frame to show anyone, or nil when it is one.
    /// - Parameters: bytes: the whole mapped buffer; bytesUsed: how much of it the frame
    ///   fills; failed: whether the driver flagged it.
    func damage(bytes: UnsafeRawBufferPointer, bytesUsed: Int, failed: Bool) -> String? {
        if failed { return "the driver flagged the frame as failed" }
        if bytesUsed < minimumBytes { return "short buffer (\(bytesUsed) of \(minimumBytes) bytes)" }
        if format.isCompressed, !LumaExtractor.hasJPEGMarkers(UnsafeRawBufferPointer(rebasing: bytes.prefix(bytesUsed))) {
            return "JPEG without start and end markers"
        }
        return nil
    }

    /// The frame in a checked buffer, lent out without a copy.
    func frame(bytesUsed: Int, sequence: UInt32, timestamp: MonotonicInstant, buffer: any FrameBuffer) -> Frame {
        Frame(format: format, width: width, height: height, bytesPerLine: bytesPerLine, bytesUsed: bytesUsed,
              sequence: sequence, timestamp: timestamp, buffer: buffer)
    }
}
