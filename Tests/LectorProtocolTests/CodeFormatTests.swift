import LectorProtocol
import Testing

extension MatchMessage {
    /// This MATCH as a rule on codes makes it.
    func withCode(_ format: CodeFormat) -> MatchMessage {
        var copy = self
        copy.code = format
        return copy
    }
}

@Suite("Code formats")
struct CodeFormatTests {
    @Test("a codes value names formats", arguments: [
        ("on", Set(CodeFormat.allCases)), ("off", []), ("", []), ("qr", [.qr]),
        ("qr, ean13,upc-a", [.qr, .ean13, .upcA]), ("DATA_MATRIX,micro_qr", [.dataMatrix, .microQR]),
    ] as [(String, Set<CodeFormat>)])
    func parses(value: String, formats: Set<CodeFormat>) throws {
        #expect(try CodeFormat.parseSet(value) == formats)
    }

    @Test("a word that is no format is refused, naming the formats", arguments: ["qr,ean14", "barcode", "on,off"])
    func refuses(value: String) {
        #expect(throws: CodeFormatError.self) { try CodeFormat.parseSet(value) }
        do { _ = try CodeFormat.parseSet(value) } catch { #expect(error.description.contains("codabar")) }
    }

    @Test("CODE keeps binary content as base64 and leaves it out for text")
    func binaryContent() throws {
        let binary = CodeMessage(device: "d", zone: nil, format: .qr, text: "?", binary: [0, 255, 10], box: PixelBox(x: 0, y: 0, width: 1, height: 1),
                                 corners: [], uprightCorners: [], sequence: 1, time: "t")
        let line = String(decoding: binary.bytes, as: UTF8.self)
        #expect(line.contains("\"bytes_base64\":\"AP8K\""))
        var text = binary
        text.binary = nil
        #expect(!String(decoding: text.bytes, as: UTF8.self).contains("bytes_base64"))
        #expect(try CodeMessage(json: binary.json) == binary)
    }
}
