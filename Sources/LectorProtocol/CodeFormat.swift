/// A QR code's or barcode's symbology, as written on the wire (`CODE`'s `format`) and in
/// the configuration (`codes = qr,ean13`).
public enum CodeFormat: String, Sendable, CaseIterable, Hashable {
    case qr, microQR = "micro_qr", dataMatrix = "data_matrix", aztec, pdf417
    case ean13, ean8, upcA = "upc_a", upcE = "upc_e", code128, code39, code93, itf, codabar

    /// Whether it is a linear (one-dimensional) barcode.
    public var isLinear: Bool {
        switch self {
        case .qr, .microQR, .dataMatrix, .aztec, .pdf417: false
        default: true
        }
    }

    /// The formats a `codes =` value names: `on` (every format), `off` (none), or a
    /// comma-separated list of format names.
    /// - Throws: a message naming the formats known, for a word that is none of them.
    public static func parseSet(_ value: String) throws(CodeFormatError) -> Set<CodeFormat> {
        let trimmed = value.trimmingSpaces
        switch trimmed.lowercased() {
        case "on", "yes", "true", "all": return Set(allCases)
        case "off", "no", "false", "none", "": return []
        default: break
        }
        var formats = Set<CodeFormat>()
        for word in trimmed.split(separator: ",") {
            let name = String(word).trimmingSpaces.lowercased().replacingDashes
            guard let format = CodeFormat(rawValue: name) else {
                throw CodeFormatError(word: String(word).trimmingSpaces)
            }
            formats.insert(format)
        }
        return formats
    }
}

/// A word of a `codes =` value that names no format.
public struct CodeFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    public let word: String
    public var description: String {
        "'\(word)' is no code format: give on, off, or formats among " + CodeFormat.allCases.map(\.rawValue).joined(separator: ",")
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }

    fileprivate var replacingDashes: String { String(map { $0 == "-" ? "_" : $0 }) }
}
