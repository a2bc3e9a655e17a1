import Foundation
@testable import lector
@testable import LectorProtocol
import LectorTestSupport
import Synchronization
import Testing

/// Runs `lector` in process, capturing what it prints.
private func lector(_ arguments: [String]) -> (status: Int32, out: [String], err: [String]) {
    let out = Mutex<[String]>([])
    let err = Mutex<[String]>([])
    let status = LectorCommand.main(arguments, output: ClientOutput(
        standard: { line in out.withLock { $0 += line.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) } },
        error: { line in err.withLock { $0.append(line) } }))
    return (status, out.withLock { $0 }, err.withLock { $0 })
}

@Suite("lector client", .serialized)
struct ClientTests {
    @Test("parses commands; usage errors", arguments: [
        ([], false), (["frobnicate"], false), (["watch", "--level", "page"], false), (["snapshot"], false),
        (["orientation", "--device", "demo"], false), (["status", "--boxes"], false),
        (["watch", "--device", "a", "--device", "b", "--min-confidence", "0.5", "--changes-only"], true),
        (["snapshot", "-o", "x.jpg", "--boxes", "--max-width", "320"], true),
        (["orientation", "--device", "demo", "--device-orientation", "landscape-left", "--camera-position", "front"], true),
        (["history", "--device", "gate", "--rule", "plate", "--since", "2026-12-04", "--limit", "10", "--csv"], true),
        (["history", "--since", "12h", "--json", "--db", "h.sqlite"], true),
        (["history", "--since", "yesterday"], false), (["history", "--limit", "0"], false), (["history", "--json", "--csv"], false),
        (["history", "--boxes"], false),
        // Issue 45 point 8: a while too long to be a time is a usage error, not a trap.
        (["history", "--since", "999999999999d"], false), (["history", "--since", "1e400s"], false),
        (["history", "--since", "nans"], false), (["history", "--since", "-5m"], false),
    ])
    func parsing(arguments: [String], valid: Bool) {
        #expect(((try? ClientCommand.parse(arguments)) != nil) == valid)
        if !valid { #expect(lector(arguments).status == 2) }
    }

    @Test("history --since: RFC 3339 as given, or a while before now", arguments: [
        ("2026-12-04T21:00:00Z", "2026-12-04T21:00:00Z"), ("2026-12-04", "2026-12-04"), ("90s", "2026-12-04T21:58:30.000Z"),
        ("30m", "2026-12-04T21:30:00.000Z"), ("2h", "2026-12-04T20:00:00.000Z"), ("1d", "2026-12-03T22:00:00.000Z"),
    ])
    func since(text: String, expected: String) {
        let now = Date(timeIntervalSince1970: 1_796_421_600)  // 2026-12-04T22:00:00Z
        #expect(ClientCommand.since(text, now: now) == expected)
    }

    @Test("history --since: a while before 1970, infinite or not a number is refused",
          arguments: ["999999999999d", "1e400s", "infh", "nans", "30000d", "-1s"])
    func sinceRefused(text: String) {
        let now = Date(timeIntervalSince1970: 1_796_421_600)
        #expect(ClientCommand.since(text, now: now) == nil)
    }

    @Test("history --csv: cells a spreadsheet would take as a formula start with '", arguments: [
        ("=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""), ("+SUM(A1:A9)", "'+SUM(A1:A9)"),
        ("-2+3", "'-2+3"), ("@cmd", "'@cmd"), ("\tx", "'\tx"), ("AB 123", "AB 123"), ("a,b", "\"a,b\""), ("1-2", "1-2"), ("", ""),
    ])
    func csvField(field: String, expected: String) {
        #expect(ClientFormat.csvField(field) == expected)
    }

    @Test("history lines: control characters of stored text are escaped", arguments: [
        ("AB\n123", "AB\\n123"), ("\u{1B}[31mred", "\\u{1B}[31mred"), ("a\rb\tc", "a\\rb\\tc"), ("\u{202E}abc", "\\u{202E}abc"),
        ("Zürich 12", "Zürich 12"), ("می\u{200C}خواهم", "می\u{200C}خواهم"),
    ])
    func printable(text: String, expected: String) {
        #expect(ClientFormat.printable(text) == expected)
    }

    @Test("every command has --help")
    func help() {
        for action in ClientCommand.Action.allCases {
            let result = lector([action.rawValue, "--help"])
            #expect(result.status == 0 && result.out.first?.hasPrefix("Usage: lector \(action.rawValue)") == true)
        }
        #expect(lector(["--help"]).out.first == "Usage: lector COMMAND [options]")
    }

    @Test("cannot connect: exit 69")
    func cannotConnect() {
        let result = lector(["status", "--socket", "/nonexistent/lector.sock"])
        #expect(result.status == 69)
        #expect(result.err.first?.contains("cannot connect to /nonexistent/lector.sock") == true)
    }

    @Test("against a real server: watch, devices, status, poll, orientation, snapshot, errors")
    func endToEnd() throws {
        let harness = try ServerHarness(fps: 5)
        defer { harness.stop() }
        let socket = ["--socket", harness.path]

        let watch = lector(["watch", "--count", "2"] + socket)
        #expect(watch.status == 0)
        let known = ["LECTOR READS TEXT", "Platform 4 departs 10:42", "from live camera frames", "Mind the gap"]
        #expect(watch.out.contains { line in known.contains { line.hasSuffix($0) } }, "\(watch.out)")
        #expect(watch.out.allSatisfy { $0.hasPrefix("demo 0.") || $0.hasPrefix("demo 1.") || $0.hasPrefix("-- ") },
                "DEVICE CONFIDENCE TEXT, each frame after a separator")
        #expect(watch.out.first?.hasPrefix("-- ") == true && watch.out.first?.contains(" demo frame ") == true, "\(watch.out)")

        let json = lector(["watch", "--count", "1", "--json"] + socket)
        #expect(json.status == 0)
        #expect(json.out.allSatisfy { (try? JSONParser.parse($0))?["class"] != nil }, "--json passes NDJSON through")
        #expect(json.out.contains { $0.hasPrefix(#"{"class":"TEXT""#) })

        let devices = lector(["devices"] + socket)
        #expect(devices.status == 0 && devices.out.first?.hasPrefix("demo  ") == true)
        let status = lector(["status"] + socket)
        #expect(status.status == 0 && status.out.first?.hasPrefix("lectord \(LectorRelease.version)") == true)
        let poll = lector(["poll"] + socket)
        #expect(poll.status == 0 && !poll.out.isEmpty)

        let orientation = lector(["orientation", "--device", "demo", "--device-orientation", "landscape-left", "--camera-position", "front"] + socket)
        #expect(orientation.status == 0 && orientation.out == ["demo: orientation 4 (down-mirrored)"])
        let unknown = lector(["orientation", "--device", "nope", "--rotation", "90"] + socket)
        #expect(unknown.status == 1 && unknown.err.first?.contains("unknown device") == true)

        let file = harness.directory + "/snap.jpg"
        let snapshot = lector(["snapshot", "-o", file, "--boxes", "--max-width", "320"] + socket)
        #expect(snapshot.status == 0, "\(snapshot.err)")
        let jpeg = try #require(FileManager.default.contents(atPath: file))
        #expect(jpeg.prefix(3) == Data([0xFF, 0xD8, 0xFF]))
        #expect(snapshot.out.first?.contains("320x240 JPEG") == true, "\(snapshot.out)")
    }
}
