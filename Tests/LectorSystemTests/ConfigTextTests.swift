@testable import LectorSystem
import LectorTestSupport
import Testing

/// The syntax lectord's and the bridges' configuration files share.
@Suite("Configuration file syntax")
struct ConfigTextTests {
    @Test("lines that say something, comments and blanks left out", arguments: [
        ("key = value", [ConfigLine.setting(key: "key", value: "value")]),
        ("  client-buffer=65536  ", [.setting(key: "client_buffer", value: "65536")]),
        ("# a comment\n; another\n\n   \n", []),
        ("match = ^a#b$ # a comment", [.setting(key: "match", value: "^a#b$")]),
        ("match = [#]x\t# tab comment", [.setting(key: "match", value: "[#]x")]),
        ("empty =", [.setting(key: "empty", value: "")]),
        ("[ camera kitchen ]\ndevice = /dev/video0", [.section("camera kitchen"), .setting(key: "device", value: "/dev/video0")]),
    ])
    func lines(text: String, expected: [ConfigLine]) throws {
        #expect(try ConfigText.lines(text, path: "t.conf").map(\.line) == expected, "what \(text.debugDescription) says")
    }

    @Test("line numbers count every line, comments and blanks included")
    func numbers() throws {
        let lines = try ConfigText.lines("# head\n\na = 1\n[s]\n  # x\nb = 2", path: "t.conf")
        #expect(lines.map(\.number) == [3, 4, 6], "1-based numbers of the lines that say something")
    }

    @Test("mistakes name the file and the line", arguments: [
        ("a = 1\n[camera", 2, "a section header must end with ]"),
        ("just words", 1, "expected 'key = value'"),
    ])
    func mistakes(text: String, line: Int, message: String) {
        #expect(throws: ConfigError(path: "t.conf", line: line, key: nil, message: message)) {
            try ConfigText.lines(text, path: "t.conf")
        }
    }

    @Test("a file that cannot be read is a mistake at line 0")
    func unreadable() {
        #expect(throws: ConfigError.self) { try ConfigText.read("/nonexistent/lector.conf") }
        do {
            _ = try ConfigText.read("/nonexistent/lector.conf")
        } catch {
            #expect(error.line == 0 && error.description.hasPrefix("/nonexistent/lector.conf: cannot read the file"), "\(error)")
        }
    }
}
