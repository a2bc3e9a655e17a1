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

    /// A DEVICE entry with `codes` (nil: none).
    static func device(codes: [CodeFormat]?) -> DeviceMessage {
        var info = DeviceInfo(path: "/dev/video0", state: .streaming, name: "door")
        info.codes = codes
        return DeviceMessage(info: info, orientation: .up, watched: true)
    }

    @Test("DEVICE's codes: the camera's formats in order, absent when it reads none (proto_minor 15)", arguments: [
        ([.qr, .ean13] as [CodeFormat]?, #""codes":["qr","ean13"]"#),
        ([.upcA, .dataMatrix, .codabar], #""codes":["upc_a","data_matrix","codabar"]"#),
        (nil, nil),
    ] as [([CodeFormat]?, String?)])
    func deviceCodes(codes: [CodeFormat]?, member: String?) throws {
        let message = Self.device(codes: codes)
        let line = JSONWriter.string(message.json)
        if let member {
            #expect(line.contains(member), "\(line)")
        } else {
            #expect(!line.contains("\"codes\""), "\(line)")
        }
        let decoded = try DeviceMessage(json: try JSONParser.parse(line))
        #expect(decoded == message)
        #expect(decoded.info.codes == codes)
    }

    @Test("DEVICE's codes from a lectord: unknown formats left out, a wrong shape refused", arguments: [
        (#"["qr","rmqr","ean8"]"#, [.qr, .ean8] as [CodeFormat]?),
        (#"[]"#, []),
        (#""qr""#, nil),
        (#"["qr",7]"#, nil),
    ] as [(String, [CodeFormat]?)])
    func deviceCodesDecoded(member: String, codes: [CodeFormat]?) throws {
        let line = #"{"class":"DEVICE","path":"demo","state":"idle","orientation":{"exif":1,"name":"up"},"#
            + #""camera_position":"back","watched":false,"codes":"# + member + "}"
        let json = try JSONParser.parse(line)
        if let codes {
            #expect(try DeviceMessage(json: json).info.codes == codes)
        } else {
            #expect(throws: ProtocolError.self) { try DeviceMessage(json: json) }
        }
    }
}
