import LectorImaging
import LectorProtocol
#if canImport(CZXing)
import CZXing
#endif

/// A QR code or barcode found in an image.
public struct FoundCode: Equatable, Sendable {
    public var format: CodeFormat
    /// The content as the library decoded it to text.
    public var text: String
    /// The content's bytes.
    public var bytes: [UInt8]
    /// Its corners in the image read, as the code is read: top-left, top-right,
    /// bottom-right, bottom-left.
    public var corners: [PixelPoint]

    public init(format: CodeFormat, text: String, bytes: [UInt8], corners: [PixelPoint]) {
        self.format = format
        self.text = text
        self.bytes = bytes
        self.corners = corners
    }

    /// The box around its corners.
    public var box: PixelBox {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let left = xs.min() ?? 0, top = ys.min() ?? 0
        return PixelBox(x: left, y: top, width: max(1, (xs.max() ?? 0) - left + 1), height: max(1, (ys.max() ?? 0) - top + 1))
    }

    /// The bytes, when they are not the UTF-8 of `text` (binary content).
    public var binaryBytes: [UInt8]? { Array(text.utf8) == bytes ? nil : bytes }
}

/// Why codes could not be read.
public enum CodeReaderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// This build has no code library (ZXing-C++ was not found when it was built).
    case unavailable
    /// The library failed on an image (its message).
    case failed(String)

    public var description: String {
        switch self {
        case .unavailable: "this lectord was built without ZXing-C++ (install libzxing-dev and build again)"
        case let .failed(reason): "the code library failed: \(reason)"
        }
    }
}

/// Finds QR codes and barcodes in gray images with ZXing-C++ (the only file that calls
/// it). One pass over the image as it is, rotated codes included; the library's image
/// pyramid is not used (its duplicate check aborted the process on linear codes in 1.4,
/// measured in docs/codes.md). Stateless: any thread may call it.
public enum CodeReader {
    /// Whether this build can read codes.
    public static var isAvailable: Bool {
        #if canImport(CZXing)
        true
        #else
        false
        #endif
    }

    /// The library's version, nil without one.
    public static var libraryVersion: String? {
        #if canImport(CZXing)
        String(cString: lector_codes_library_version())
        #else
        nil
        #endif
    }

    /// The codes of `formats` in `image` (at most one per content and format).
    /// - Throws: ``CodeReaderError``.
    public static func read(_ image: GrayImage, formats: Set<CodeFormat>) throws(CodeReaderError) -> [FoundCode] {
        guard !formats.isEmpty, image.width > 0, image.height > 0 else { return [] }
        #if canImport(CZXing)
        var codes: UnsafeMutablePointer<lector_code>?
        var error = [CChar](repeating: 0, count: 256)
        let count = image.pixels.withUnsafeBufferPointer { pixels in
            lector_codes_read(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                              bits(of: formats), &codes, &error, error.count)
        }
        guard count >= 0 else { throw .failed(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        defer { lector_codes_free(codes, count) }
        var found: [FoundCode] = []
        for index in 0..<Int(count) {
            guard let code = codes?[index], let format = format(of: code.format) else { continue }
            let text = code.text.map { String(cString: $0) } ?? ""
            let bytes = code.bytes.map { Array(UnsafeBufferPointer(start: $0, count: code.byte_count)) } ?? []
            let c = code.corners
            let corners = [PixelPoint(x: Int(c.0), y: Int(c.1)), PixelPoint(x: Int(c.2), y: Int(c.3)),
                           PixelPoint(x: Int(c.4), y: Int(c.5)), PixelPoint(x: Int(c.6), y: Int(c.7))]
            let made = FoundCode(format: format, text: text, bytes: bytes, corners: corners)
            if !found.contains(where: { $0.format == made.format && $0.bytes == made.bytes }) { found.append(made) }
        }
        return found
        #else
        throw .unavailable
        #endif
    }

    #if canImport(CZXing)
    /// Lector's format bits (lector_codes.h), in the order of ``CodeFormat/allCases``.
    private static let table: [(CodeFormat, UInt32)] = [
        (.qr, UInt32(LECTOR_CODE_QR)), (.microQR, UInt32(LECTOR_CODE_MICRO_QR)), (.dataMatrix, UInt32(LECTOR_CODE_DATA_MATRIX)),
        (.aztec, UInt32(LECTOR_CODE_AZTEC)), (.pdf417, UInt32(LECTOR_CODE_PDF417)), (.ean13, UInt32(LECTOR_CODE_EAN13)),
        (.ean8, UInt32(LECTOR_CODE_EAN8)), (.upcA, UInt32(LECTOR_CODE_UPCA)), (.upcE, UInt32(LECTOR_CODE_UPCE)),
        (.code128, UInt32(LECTOR_CODE_CODE128)), (.code39, UInt32(LECTOR_CODE_CODE39)), (.code93, UInt32(LECTOR_CODE_CODE93)),
        (.itf, UInt32(LECTOR_CODE_ITF)), (.codabar, UInt32(LECTOR_CODE_CODABAR)),
    ]

    private static func bits(of formats: Set<CodeFormat>) -> UInt32 {
        table.reduce(0) { formats.contains($1.0) ? $0 | $1.1 : $0 }
    }

    private static func format(of bit: UInt32) -> CodeFormat? { table.first { $0.1 == bit }?.0 }
    #endif
}
