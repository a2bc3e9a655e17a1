import LectorProtocol
import LectorSystem

/// One captured frame: the pixels as the camera delivered them plus V4L2's metadata.
///
/// A frame does not own its pixels: `buffer` does. For a camera that is a driver
/// buffer mapped into memory, borrowed without copying; the consumer gives it back with
/// ``giveBack()`` as soon as it is done, so the driver can fill it again.
public struct Frame: Sendable {
    /// How the pixels are laid out.
    public var format: PixelFormat
    /// Width and height in pixels, as captured (before orientation).
    public var width: Int
    public var height: Int
    /// Bytes from one row of the (luma) plane to the next; at least the format's minimum.
    public var bytesPerLine: Int
    /// Bytes of `buffer` that hold this frame (V4L2 `bytesused`).
    public var bytesUsed: Int
    /// The driver's frame sequence number.
    public var sequence: UInt32
    /// When the frame was captured (V4L2's buffer timestamp, CLOCK_MONOTONIC).
    public var timestamp: MonotonicInstant
    /// Where the bytes live.
    public let buffer: any FrameBuffer
    /// Set on a frame made by a ``FrameStacker``: what its image averages.
    public var stackInfo: StackedFrameInfo?
    /// A stacked frame's newest captured frame, kept borrowed for the evidence of a MATCH
    /// (only where evidence is kept); given back with this frame.
    public var held: HeldCapture?

    public init(
        format: PixelFormat, width: Int, height: Int, bytesPerLine: Int? = nil, bytesUsed: Int? = nil,
        sequence: UInt32, timestamp: MonotonicInstant, buffer: any FrameBuffer
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine ?? format.minimumBytesPerLine(width: width)
        self.bytesUsed = min(bytesUsed ?? buffer.byteCount, buffer.byteCount)
        self.sequence = sequence
        self.timestamp = timestamp
        self.buffer = buffer
    }

    /// The bytes that hold this frame: the first `bytesUsed` bytes of the buffer.
    public var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<bytesUsed])
    }

    /// Returns the buffer to its source (a driver buffer is queued again), and the
    /// captured frame it holds, if any. Call once.
    public func giveBack() {
        buffer.giveBack()
        held?.release()
    }

    /// The file the frame was replayed from, or nil.
    public var origin: String? { buffer.origin }
}

/// Storage behind a ``Frame``: a mapped driver buffer or a block of memory.
public protocol FrameBuffer: AnyObject, Sendable {
    /// The whole buffer; valid until ``giveBack()``.
    var bytes: UnsafeRawBufferPointer { get }
    /// `bytes.count`, known without producing the bytes (a stack's mean is read out only
    /// when someone reads it).
    var byteCount: Int { get }
    /// Hands the buffer back to whoever filled it.
    func giveBack()
    /// Where the bytes came from, for messages about them (a replayed file), or nil.
    var origin: String? { get }
    /// The image file a replayed frame was decoded from (its bytes, for the evidence's
    /// colour: the frame itself is gray), or nil.
    var imageFile: (bytes: [UInt8], path: String)? { get }
}

extension FrameBuffer {
    public var origin: String? { nil }
    public var imageFile: (bytes: [UInt8], path: String)? { nil }
    public var byteCount: Int { bytes.count }
}

/// A buffer of 8-bit gray pixels computed when read (a stack's mean): the luma
/// extractor has it write them straight into its image, with no copy in between.
public protocol GrayReadOutBuffer: FrameBuffer {
    /// Writes the pixels into `image`, resized to the frame's size.
    func readOut(into image: inout GrayImage)
}

/// A frame buffer in ordinary memory, for replayed and generated frames.
/// Sendable because its bytes are written once, in `init`, and only read afterwards.
public final class HeapFrameBuffer: FrameBuffer, @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// Copies `bytes` into a new buffer.
    /// - Parameters:
    ///   - origin: the file the bytes were read from, named in messages about them.
    ///   - imageFile: the bytes of the image file `bytes` were decoded from (a colour
    ///     PNG replayed as GREY), kept for evidence in colour.
    public init(copying bytes: some Collection<UInt8>, origin: String? = nil, imageFile: [UInt8]? = nil) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        storage.copyBytes(from: bytes)
        count = bytes.count
        self.origin = origin
        self.imageFile = imageFile.map { ($0, origin ?? "image") }
    }

    private let count: Int
    public let origin: String?
    public let imageFile: (bytes: [UInt8], path: String)?

    deinit { storage.deallocate() }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }

    /// Nothing to return: the memory is freed when the last frame referring to it goes.
    public func giveBack() {}
}

extension Logger {
    /// Logs a frame that could not be decoded: a replayed file by name, once for the run
    /// (not at every pass of a loop); a camera's frames once until one is recognized.
    package func frameRejected(_ frame: Frame, reason: String) {
        if let origin = frame.origin {
            once("file " + origin, .warning, "frame rejected", [("file", origin), ("reason", reason)])
        } else {
            once("frame", .warning, "frame rejected", [("reason", reason)])
        }
    }
}
