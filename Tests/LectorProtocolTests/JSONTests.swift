@testable import LectorProtocol
import LectorTestSupport
import Testing

@Suite("JSON")
struct JSONTests {
    @Test("writes objects in order, compactly", arguments: [
        (JSONValue.object([("class", .string("TEXT")), ("seq", .int(3)), ("ok", .bool(true))]), #"{"class":"TEXT","seq":3,"ok":true}"#),
        (.array([.number(1.5), .number(-0.25), .number(12.3456)]), "[1.5,-0.25,12.346]"),
        (.string("line\n\"quoted\"\\ \u{01}"), #""line\n\"quoted\"\\ \u0001""#),
        (.string("Grüße"), "\"Grüße\""),
    ])
    func writes(value: JSONValue, expected: String) {
        #expect(JSONWriter.string(value) == expected)
    }

    @Test("parses what it writes")
    func roundTrip() throws {
        let value = JSONValue.object([("class", .string("WATCH")), ("enable", .bool(true)),
                                      ("devices", .array([.string("/dev/video0")])), ("min_confidence", .number(0.5))])
        #expect(try JSONParser.parse(JSONWriter.string(value)) == value)
    }

    @Test("refuses malformed input with a typed error", arguments: [
        "", "{", "{\"a\":}", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\x\"", "\"unterminated", "{} {}", "nul", "\"\\ud800\"",
        "{\"a\":1,\"a\":2}", "{\"b\":{\"c\":1,\"c\":1}}",
    ])
    func refuses(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test("refuses invalid UTF-8")
    func refusesInvalidUTF8() {
        #expect(throws: JSONParseError.invalidUTF8) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test("bounds nesting")
    func boundsNesting() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParseError.tooDeep(limit: JSONParser.maximumDepth)) { try JSONParser.parse(deep) }
    }

    @Test("decodes escapes and surrogate pairs")
    func escapes() throws {
        #expect(try JSONParser.parse(#""a\u00e9\ud83d\ude00\/\t""#) == .string("aé😀/\t"))
    }
}
