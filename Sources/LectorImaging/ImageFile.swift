import CTesseract
import LectorProtocol
import LectorSystem

/// Reads image files (PNG, JPEG, TIFF, PNM, BMP, …) as gray images through Leptonica.
/// The only Swift file that calls Leptonica.
///
/// A file is read only when it is a regular file (never blocking on a FIFO), and decoded
/// only after its header's size passed the ``FrameLimits``: a small file that declares a
/// huge image is refused without allocating for it.
public enum ImageFile {
    /// Why a file could not be read.
    public struct ReadError: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot read image \(path): \(reason)" }
    }

    /// Reads `path` and converts it to 8-bit gray.
    public static func readGray(path: String, limits: FrameLimits = .standard) throws(ReadError) -> GrayImage {
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(path, maximumBytes: limits.maximumDecoderBytes + 65536)
        } catch {
            throw ReadError(path: path, reason: error.reason)
        }
        return try decodeGray(bytes, path: path, limits: limits)
    }

    /// Decodes an image file's bytes to 8-bit gray; `path` names it in errors.
    public static func decodeGray(_ bytes: [UInt8], path: String, limits: FrameLimits = .standard) throws(ReadError) -> GrayImage {
        silenceLeptonica
        var format: Int32 = 0, width: Int32 = 0, height: Int32 = 0, bitsPerSample: Int32 = 0, samples: Int32 = 0, colormap: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            pixReadHeaderMem($0.baseAddress, $0.count, &format, &width, &height, &bitsPerSample, &samples, &colormap)
        }
        guard header == 0 else { throw ReadError(path: path, reason: "unknown format or corrupt header") }
        if let refusal = limits.refusal(width: Int(width), height: Int(height)) { throw ReadError(path: path, reason: refusal) }
        var pix = bytes.withUnsafeBufferPointer { pixReadMem($0.baseAddress, $0.count) }
        defer { pixDestroy(&pix) }
        guard pix != nil else { throw ReadError(path: path, reason: "corrupt or unsupported image data") }
        var gray = pixConvertTo8(pix, 0)  // PIX is opaque in leptonica >= 1.83 (Debian 13)
        defer { pixDestroy(&gray) }
        guard gray != nil else { throw ReadError(path: path, reason: "cannot convert to gray") }
        let grayWidth = Int(pixGetWidth(gray)), grayHeight = Int(pixGetHeight(gray))
        var data: UnsafeMutablePointer<UInt8>?
        var count = 0
        guard pixGetRasterData(gray, &data, &count) == 0, let data, count >= grayWidth * grayHeight else {
            throw ReadError(path: path, reason: "cannot read its pixels")
        }
        defer { lept_free(data) }
        return GrayImage(width: grayWidth, height: grayHeight, pixels: Array(UnsafeBufferPointer(start: data, count: grayWidth * grayHeight)))
    }

    /// Whether an image file's header says it holds colour (more than one sample a
    /// pixel, or a colour map); false when it cannot be read.
    public static func hasColor(_ bytes: [UInt8]) -> Bool {
        silenceLeptonica
        var format: Int32 = 0, width: Int32 = 0, height: Int32 = 0, bitsPerSample: Int32 = 0, samples: Int32 = 0, colormap: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            pixReadHeaderMem($0.baseAddress, $0.count, &format, &width, &height, &bitsPerSample, &samples, &colormap)
        }
        return header == 0 && (samples > 1 || colormap != 0)
    }

    /// Decodes an image file's bytes in colour (full-range Y, Cb, Cr planes; one gray
    /// plane for a gray file); `path` names it in errors. For the evidence of a replayed
    /// image's MATCH, not per frame.
    public static func decodeColor(_ bytes: [UInt8], path: String, limits: FrameLimits = .standard) throws(ReadError) -> ColorImage {
        guard hasColor(bytes) else { return ColorImage(planes: [try decodeGray(bytes, path: path, limits: limits)]) }
        var format: Int32 = 0, width: Int32 = 0, height: Int32 = 0, bitsPerSample: Int32 = 0, samples: Int32 = 0, colormap: Int32 = 0
        _ = bytes.withUnsafeBufferPointer {
            pixReadHeaderMem($0.baseAddress, $0.count, &format, &width, &height, &bitsPerSample, &samples, &colormap)
        }
        if let refusal = limits.refusal(width: Int(width), height: Int(height)) { throw ReadError(path: path, reason: refusal) }
        var pix = bytes.withUnsafeBufferPointer { pixReadMem($0.baseAddress, $0.count) }
        defer { pixDestroy(&pix) }
        guard pix != nil else { throw ReadError(path: path, reason: "corrupt or unsupported image data") }
        var color = pixConvertTo32(pix)
        defer { pixDestroy(&color) }
        guard color != nil, let words = pixGetData(color) else { throw ReadError(path: path, reason: "cannot convert to colour") }
        let colorWidth = Int(pixGetWidth(color)), colorHeight = Int(pixGetHeight(color)), wordsPerLine = Int(pixGetWpl(color))
        var planes = (0..<3).map { _ in GrayImage(width: colorWidth, height: colorHeight) }
        for y in 0..<colorHeight {
            for x in 0..<colorWidth {
                // Leptonica's RGBA word: red in the most significant byte, whatever the byte order.
                let word = words[y * wordsPerLine + x]
                let (luma, blue, red) = ColorImage.ycbcr(red: Int(word >> 24 & 0xFF), green: Int(word >> 16 & 0xFF), blue: Int(word >> 8 & 0xFF))
                planes[0].pixels[y * colorWidth + x] = luma
                planes[1].pixels[y * colorWidth + x] = blue
                planes[2].pixels[y * colorWidth + x] = red
            }
        }
        return ColorImage(planes: planes)
    }

    /// Leptonica prints every error to stderr; Lector reports errors itself.
    private static let silenceLeptonica: Void = { _ = setMsgSeverity(6) }()  // L_SEVERITY_NONE
}
