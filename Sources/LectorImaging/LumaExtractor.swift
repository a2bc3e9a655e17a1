import LectorProtocol
import LectorSystem

/// Turns a camera frame of any supported ``PixelFormat`` into an 8-bit gray image.
///
/// Raw formats copy or pick the Y samples, honouring `bytesperline` padding; RGB formats
/// compute BT.601 luma; MJPEG/JPEG decode straight to grayscale. Every size is checked
/// against `bytesused` before a byte is read: a short or inconsistent buffer is a
/// ``FrameError``, never an out-of-bounds read.
///
/// Owns a JPEG decoder, so it is not thread-safe: one extractor per recognizer.
public final class LumaExtractor {
    private let jpeg = JPEGDecoder()

    public init() {}

    /// Largest frame side accepted (V4L2 drivers report at most 16384 today).
    public static let maximumSide = 16384

    /// Extracts the luma of `frame` into `image`, reusing its allocation.
    /// - Parameter scale: for compressed formats, decode downscaled by this factor (1 or 2).
    public func extract(_ frame: Frame, into image: inout GrayImage, scale: Int = 1) throws(FrameError) {
        if let computed = frame.buffer as? any GrayReadOutBuffer {
            // A stack's mean (GREY): read straight from the stack, no copy in between.
            computed.readOut(into: &image)
            return
        }
        let format = frame.format
        if format.isCompressed {
            guard Self.hasJPEGMarkers(frame.bytes) else {
                throw .corrupt(format: format, reason: "no JPEG start/end-of-image markers")
            }
            try jpeg.decodeGray(frame.bytes, scale: scale, into: &image, format: format)
            return
        }
        let width = frame.width, height = frame.height, stride = frame.bytesPerLine
        guard width > 0, height > 0, width <= Self.maximumSide, height <= Self.maximumSide else {
            throw .badSize(width: width, height: height)
        }
        let minimum = format.minimumBytesPerLine(width: width)
        guard stride >= minimum else { throw .badStride(format: format, bytesPerLine: stride, minimum: minimum) }
        // frameSize is non-nil for every uncompressed format.
        let needed = format.frameSize(width: width, height: height, bytesPerLine: stride) ?? 0
        guard frame.bytesUsed >= needed else { throw .truncated(format: format, needed: needed, got: frame.bytesUsed) }

        image.resize(width: width, height: height)
        let source = frame.bytes
        image.pixels.withUnsafeMutableBufferPointer { target in
            switch format {
            case .grey, .nv12, .nv21, .nv16, .nv61, .yu12, .yv12:
                Self.copyRows(source, stride: stride, into: target, width: width, height: height)
            case .yuyv, .yvyu:
                Self.pick(source, stride: stride, step: 2, offset: 0, into: target, width: width, height: height)
            case .uyvy, .vyuy:
                Self.pick(source, stride: stride, step: 2, offset: 1, into: target, width: width, height: height)
            case .rgb24:
                Self.luma(source, stride: stride, step: 3, red: 0, green: 1, blue: 2, into: target, width: width, height: height)
            case .bgr24:
                Self.luma(source, stride: stride, step: 3, red: 2, green: 1, blue: 0, into: target, width: width, height: height)
            case .xrgb32, .argb32:  // memory order: A/X, R, G, B
                Self.luma(source, stride: stride, step: 4, red: 1, green: 2, blue: 3, into: target, width: width, height: height)
            case .xbgr32, .abgr32:  // memory order: B, G, R, A/X
                Self.luma(source, stride: stride, step: 4, red: 2, green: 1, blue: 0, into: target, width: width, height: height)
            case .mjpeg, .jpeg:
                preconditionFailure("compressed formats are decoded above")
            }
        }
    }

    /// ustreamer's check: a JPEG starts with SOI (FF D8) and ends with EOI (FF D9),
    /// allowing trailing zero padding that some UVC cameras add.
    public static func hasJPEGMarkers(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return false }
        var end = bytes.count
        while end > 2, bytes[end - 1] == 0 { end -= 1 }
        return end >= 4 && bytes[end - 2] == 0xFF && bytes[end - 1] == 0xD9
    }

    private static func copyRows(_ source: UnsafeRawBufferPointer, stride: Int, into target: UnsafeMutableBufferPointer<UInt8>,
                                 width: Int, height: Int) {
        guard let from = source.baseAddress, let to = target.baseAddress else { return }
        if stride == width {
            to.update(from: from.assumingMemoryBound(to: UInt8.self), count: width * height)
            return
        }
        for y in 0..<height {
            (to + y * width).update(from: (from + y * stride).assumingMemoryBound(to: UInt8.self), count: width)
        }
    }

    private static func pick(_ source: UnsafeRawBufferPointer, stride: Int, step: Int, offset: Int,
                             into target: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int) {
        // In C (CFrameKernels), optimized in debug builds too: a debug build's Swift loop
        // took several milliseconds for a 720p YUYV frame on the capture thread.
        guard source.count > offset else { return }
        let bytes = UnsafeBufferPointer(rebasing: source.assumingMemoryBound(to: UInt8.self)[offset...])
        FrameKernels.pickSamples(bytes, stride: stride, step: step, width: width, height: height, into: target)
    }

    /// BT.601 luma in fixed point: Y = (77 R + 150 G + 29 B) / 256.
    private static func luma(_ source: UnsafeRawBufferPointer, stride: Int, step: Int, red: Int, green: Int, blue: Int,
                             into target: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int) {
        guard let base = source.baseAddress?.assumingMemoryBound(to: UInt8.self), let to = target.baseAddress else { return }
        for y in 0..<height {
            let row = base + y * stride
            let out = to + y * width
            for x in 0..<width {
                let pixel = row + x &* step
                let sum = 77 &* Int(pixel[red]) &+ 150 &* Int(pixel[green]) &+ 29 &* Int(pixel[blue])
                out[x] = UInt8(truncatingIfNeeded: (sum &+ 128) >> 8)
            }
        }
    }
}
