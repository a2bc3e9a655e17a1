import CTesseract
import LectorProtocol
import LectorSystem

/// Reads image files (PNG, JPEG, TIFF, PNM, BMP, …) as gray images through Leptonica.
/// The only Swift file that calls Leptonica.
public enum ImageFile {
    /// Why a file could not be read.
    public struct ReadError: Error, Equatable, CustomStringConvertible {
        public let path: String
        public var description: String { "cannot read image \(path): unknown format, corrupt or unreadable" }
    }

    /// Reads `path` and converts it to 8-bit gray.
    public static func readGray(path: String) throws(ReadError) -> GrayImage {
        silenceLeptonica
        var pix: UnsafeMutablePointer<PIX>? = pixRead(path)
        defer { pixDestroy(&pix) }
        guard pix != nil else { throw ReadError(path: path) }
        var gray: UnsafeMutablePointer<PIX>? = pixConvertTo8(pix, 0)
        defer { pixDestroy(&gray) }
        guard gray != nil else { throw ReadError(path: path) }
        let width = Int(pixGetWidth(gray)), height = Int(pixGetHeight(gray))
        var data: UnsafeMutablePointer<UInt8>?
        var count = 0
        guard pixGetRasterData(gray, &data, &count) == 0, let data, count >= width * height else {
            throw ReadError(path: path)
        }
        defer { lept_free(data) }
        return GrayImage(width: width, height: height, pixels: Array(UnsafeBufferPointer(start: data, count: width * height)))
    }

    /// Leptonica prints every error to stderr; Lector reports errors itself.
    private static let silenceLeptonica: Void = { _ = setMsgSeverity(6) }()  // L_SEVERITY_NONE
}
