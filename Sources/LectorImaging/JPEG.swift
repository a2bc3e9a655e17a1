import CJPEG
import LectorProtocol
import LectorSystem

/// Decodes JPEG frames straight to grayscale. The only Swift owner of libjpeg's
/// decompressor; every libjpeg call goes through the CJPEG target, whose error manager
/// turns libjpeg's fatal errors into return codes instead of `exit()`.
///
/// Not thread-safe: one decoder per recognizer.
public final class JPEGDecoder {
    fileprivate let handle: OpaquePointer
    fileprivate let limits: FrameLimits

    /// - Parameter limits: checked against the header before anything is decoded; they
    ///   also bound the scans of a progressive JPEG and libjpeg's coefficient buffers.
    public init(limits: FrameLimits = .standard) {
        // lector_jpeg_decoder_create fails only when malloc does.
        guard let handle = lector_jpeg_decoder_create() else { fatalError("out of memory creating a JPEG decoder") }
        lector_jpeg_decoder_set_limits(handle, UInt(limits.maximumPixels), Int32(clamping: limits.maximumScans),
                                       limits.maximumDecoderBytes)
        self.limits = limits
        self.handle = handle
    }

    deinit { lector_jpeg_decoder_destroy(handle) }

    /// Decodes `data` into `image` as 8-bit gray, downscaled by `scale` (1, 2, 4 or 8)
    /// inside the decoder (DCT scaling, much cheaper than scaling afterwards).
    /// - Throws: ``FrameError/corrupt(format:reason:)`` for data libjpeg cannot decode,
    ///   including truncated data; ``FrameError/tooLarge(format:reason:)`` for a JPEG
    ///   beyond the decoder's ``FrameLimits``.
    public func decodeGray(_ data: UnsafeRawBufferPointer, scale: Int = 1, into image: inout GrayImage,
                           format: PixelFormat = .mjpeg) throws(FrameError) {
        guard let base = data.baseAddress, data.count >= 4 else {
            throw .corrupt(format: format, reason: "too short for a JPEG (\(data.count) bytes)")
        }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var width: Int32 = 0, height: Int32 = 0
        for _ in 0..<2 {
            let status = image.pixels.withUnsafeMutableBufferPointer { out in
                lector_jpeg_decode_gray(handle, bytes, data.count, Int32(scale), out.baseAddress, out.count, &width, &height)
            }
            switch status {
            case LECTOR_JPEG_OK:
                if Int(width) != image.width || Int(height) != image.height {
                    image.resize(width: Int(width), height: Int(height))  // only when the buffer was larger
                }
                return
            case LECTOR_JPEG_BUFFER_TOO_SMALL:
                if let refusal = limits.refusal(width: Int(width), height: Int(height)) {
                    throw .tooLarge(format: format, reason: refusal)
                }
                image.resize(width: Int(width), height: Int(height))
            case LECTOR_JPEG_TOO_LARGE:
                throw .tooLarge(format: format, reason: String(cString: lector_jpeg_decoder_message(handle)))
            default:
                throw .corrupt(format: format, reason: String(cString: lector_jpeg_decoder_message(handle)))
            }
        }
        throw .corrupt(format: format, reason: "decoder size changed between attempts")
    }
}

extension JPEGDecoder {
    /// The full size a JPEG's header declares, read without decoding.
    /// - Throws: ``FrameError/corrupt(format:reason:)`` without a readable header;
    ///   ``FrameError/tooLarge(format:reason:)`` beyond the decoder's limits.
    public func size(of data: UnsafeRawBufferPointer, format: PixelFormat = .mjpeg) throws(FrameError) -> (width: Int, height: Int) {
        guard let base = data.baseAddress else { throw .corrupt(format: format, reason: "empty") }
        var width: Int32 = 0, height: Int32 = 0
        switch lector_jpeg_read_size(handle, base.assumingMemoryBound(to: UInt8.self), data.count, &width, &height) {
        case LECTOR_JPEG_OK: return (Int(width), Int(height))
        case LECTOR_JPEG_TOO_LARGE: throw .tooLarge(format: format, reason: String(cString: lector_jpeg_decoder_message(handle)))
        default: throw .corrupt(format: format, reason: String(cString: lector_jpeg_decoder_message(handle)))
        }
    }
}

/// Encodes images as JPEG with libjpeg (snapshots, generated frames).
public enum JPEGEncoder {
    /// Why encoding failed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Encodes gray (`components` 1) or RGB (`components` 3) pixels.
    /// - Parameter ycbcr: the three components are JPEG's own full-range Y, Cb, Cr
    ///   instead of RGB: libjpeg stores them without a colour conversion.
    public static func encode(pixels: [UInt8], width: Int, height: Int, components: Int, quality: Int = 85,
                              ycbcr: Bool = false) throws(Failure) -> [UInt8] {
        precondition(components == 1 || components == 3, "JPEG encoding takes gray or RGB")
        precondition(pixels.count >= width * height * components, "pixel buffer smaller than the image")
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = pixels.withUnsafeBufferPointer { source in
            lector_jpeg_encode(source.baseAddress, Int32(width), Int32(height), width * components,
                               Int32(components), ycbcr && components == 3 ? 1 : 0, Int32(quality), &out, &size, &message, message.count)
        }
        guard status == LECTOR_JPEG_OK, let out else {
            throw Failure(description: "JPEG encoding failed: " + String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { lector_jpeg_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}

extension JPEGDecoder {
    /// Decodes `data` at full size in colour as stored: a gray JPEG as gray (1 component),
    /// a YCbCr one as full-range Y, Cb, Cr (`ycbcr`), others as RGB; 3 bytes a pixel in colour.
    /// - Throws: as ``decodeGray(_:scale:into:format:)``.
    public func decodeColor(_ data: UnsafeRawBufferPointer, format: PixelFormat = .mjpeg) throws(FrameError)
        -> (pixels: [UInt8], width: Int, height: Int, components: Int, ycbcr: Bool) {
        guard let base = data.baseAddress, data.count >= 4 else {
            throw .corrupt(format: format, reason: "too short for a JPEG (\(data.count) bytes)")
        }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var pixels: [UInt8] = []
        var width: Int32 = 0, height: Int32 = 0, components: Int32 = 0, ycbcr: Int32 = 0
        for _ in 0..<2 {
            let status = pixels.withUnsafeMutableBufferPointer { out in
                lector_jpeg_decode_color(handle, bytes, data.count, out.baseAddress, out.count, &width, &height, &components, &ycbcr)
            }
            switch status {
            case LECTOR_JPEG_OK:
                return (pixels, Int(width), Int(height), Int(components), ycbcr != 0)
            case LECTOR_JPEG_BUFFER_TOO_SMALL:
                if let refusal = limits.refusal(width: Int(width), height: Int(height)) { throw .tooLarge(format: format, reason: refusal) }
                pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * Int(max(1, components)))
            case LECTOR_JPEG_TOO_LARGE:
                throw .tooLarge(format: format, reason: String(cString: lector_jpeg_decoder_message(handle)))
            default:
                throw .corrupt(format: format, reason: String(cString: lector_jpeg_decoder_message(handle)))
            }
        }
        throw .corrupt(format: format, reason: "decoder size changed between attempts")
    }
}
