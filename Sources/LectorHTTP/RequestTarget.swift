/// A request target as the client sent it (`/api/snapshot.jpg?max_width=320`), decoded
/// once by lector-http itself and checked after decoding: the path may not hold `..`,
/// `//`, a backslash, NUL or another control character, or bytes that are not UTF-8,
/// however they were encoded; the query has at most ``maximumArguments`` arguments.
public struct RequestTarget: Equatable, Sendable {
    /// The decoded path.
    public let path: String
    /// Query arguments, decoded (`+` is a space); the last value of a repeated name.
    public let query: [String: String]

    /// Most query arguments accepted (the API takes five at most).
    public static let maximumArguments = 64

    /// Why a target is refused: the status to answer and a line saying why.
    public struct Refusal: Error, Equatable, Sendable {
        public let status: Int
        public let reason: String
    }

    /// Decodes and checks `raw`.
    public static func parse(_ raw: String) -> Result<RequestTarget, Refusal> {
        let bytes = Array(raw.utf8)
        let question = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        guard let path = decode(bytes[..<question], plusIsSpace: false), Self.isSafePath(path) else {
            return .failure(Refusal(status: 400, reason: "bad path"))
        }
        var query: [String: String] = [:]
        if question < bytes.endIndex {
            let arguments = bytes[(question + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true)
            guard arguments.count <= maximumArguments else {
                return .failure(Refusal(status: 414, reason: "too many query arguments (\(arguments.count); at most \(maximumArguments))"))
            }
            for argument in arguments {
                let equals = argument.firstIndex(of: UInt8(ascii: "=")) ?? argument.endIndex
                guard let name = decode(argument[..<equals], plusIsSpace: true),
                      let value = equals < argument.endIndex ? decode(argument[(equals + 1)...], plusIsSpace: true) : "",
                      !hasControl(name), !hasControl(value) else {
                    return .failure(Refusal(status: 400, reason: "bad query argument"))
                }
                query[name] = value
            }
        }
        return .success(RequestTarget(path: path, query: query))
    }

    private static func isSafePath(_ path: String) -> Bool {
        path.hasPrefix("/") && !path.contains("..") && !path.contains("//") && !path.contains("\\") && !hasControl(path)
    }

    private static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// Percent-decoded UTF-8 text, or nil for a bad escape or bytes that are not UTF-8.
    private static func decode(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
