/// Text from lectord made safe to print on a terminal: a recognized line is whatever a
/// sign in front of the camera says (or whatever a server on the socket sends), and an
/// escape sequence, a bell or a right-to-left override printed raw would act on the
/// user's terminal instead of being read.
enum TerminalText {
    /// `text` with each control character written as JSON writes an escape, `\u001b`:
    /// C0 controls but tab and newline, DEL, C1 controls and the bidirectional controls
    /// (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). A `--json` line stays the same
    /// JSON (these characters occur only inside its strings, where the escape means them).
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: false
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
