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

    public init(
        format: PixelFormat, width: Int, height: Int, bytesPerLine: Int? = nil, bytesUsed: Int? = nil,
        sequence: UInt32, timestamp: MonotonicInstant, buffer: any FrameBuffer
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine ?? format.minimumBytesPerLine(width: width)
        self.bytesUsed = min(bytesUsed ?? buffer.bytes.count, buffer.bytes.count)
        self.sequence = sequence
        self.timestamp = timestamp
        self.buffer = buffer
    }

    /// The bytes that hold this frame: the first `bytesUsed` bytes of the buffer.
    public var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<bytesUsed])
    }

    /// Returns the buffer to its source (a driver buffer is queued again). Call once.
    public func giveBack() { buffer.giveBack() }
}

/// Storage behind a ``Frame``: a mapped driver buffer or a block of memory.
public protocol FrameBuffer: AnyObject, Sendable {
    /// The whole buffer; valid until ``giveBack()``.
    var bytes: UnsafeRawBufferPointer { get }
    /// Hands the buffer back to whoever filled it.
    func giveBack()
}

/// A frame buffer in ordinary memory, for replayed and generated frames.
/// Sendable because its bytes are written once, in `init`, and only read afterwards.
public final class HeapFrameBuffer: FrameBuffer, @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// Copies `bytes` into a new buffer.
    public init(copying bytes: some Collection<UInt8>) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        storage.copyBytes(from: bytes)
        count = bytes.count
    }

    private let count: Int

    deinit { storage.deallocate() }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }

    /// Nothing to return: the memory is freed when the last frame referring to it goes.
    public func giveBack() {}
}
