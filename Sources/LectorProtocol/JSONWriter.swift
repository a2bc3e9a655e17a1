/// Serializes ``JSONValue``s as compact single-line JSON (one protocol message a line).
public enum JSONWriter {
    /// The value as UTF-8 bytes, without a trailing newline.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    /// The value as one line of text, without a trailing newline.
    public static func string(_ value: JSONValue) -> String { String(decoding: bytes(value), as: UTF8.self) }

    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case let .bool(flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case let .number(number): writeNumber(number, into: &out)
        case let .string(text): writeString(text, into: &out)
        case let .array(items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.0, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.1, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Integers print without a fraction; other numbers with up to 3 decimals (enough
    /// for milliseconds and confidences); non-finite numbers (never valid JSON) as 0.
    private static func writeNumber(_ number: Double, into out: inout [UInt8]) {
        guard number.isFinite else { out.append(UInt8(ascii: "0")); return }
        if number.rounded() == number, abs(number) < 1e15 {
            out.append(contentsOf: String(Int64(number)).utf8)
            return
        }
        let scaled = (number * 1000).rounded()
        if abs(scaled) >= 1e15 {
            out.append(contentsOf: "\(number)".utf8)
            return
        }
        let negative = scaled < 0
        let thousandths = Int64(abs(scaled))
        if negative { out.append(UInt8(ascii: "-")) }
        out.append(contentsOf: String(thousandths / 1000).utf8)
        var fraction = thousandths % 1000
        if fraction != 0 {
            out.append(UInt8(ascii: "."))
            var digits = 3
            while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
            let text = String(fraction)
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits - text.count))
            out.append(contentsOf: text.utf8)
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
