/// RFC 4648 base64, with padding.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 2 < bytes.count {
            let value = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
            out += [alphabet[value >> 18 & 63], alphabet[value >> 12 & 63], alphabet[value >> 6 & 63], alphabet[value & 63]]
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let value = Int(bytes[index]) << 16
            out += [alphabet[value >> 18 & 63], alphabet[value >> 12 & 63], UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if rest == 2 {
            let value = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8
            out += [alphabet[value >> 18 & 63], alphabet[value >> 12 & 63], alphabet[value >> 6 & 63], UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes; nil on a malformed input.
    public static func decode(_ text: String) -> [UInt8]? {
        var table = [UInt8](repeating: 255, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        var out: [UInt8] = []
        var buffer = 0, bits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") { break }
            let value = table[Int(byte)]
            guard value != 255 else { return nil }
            buffer = buffer << 6 | Int(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(buffer >> bits & 0xFF))
            }
        }
        return out
    }
}
