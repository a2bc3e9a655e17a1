import Foundation
import LectorHistory
import LectorProtocol
import LectorTestSupport
import Testing

/// A MATCH of `rule` on `device` at `time`.
private func match(_ device: String, _ rule: String, _ text: String, time: String, rejected: String? = nil,
                   known: KnownLookup? = nil, evidence: MatchEvidence? = nil) -> MatchMessage {
    MatchMessage(device: device, zone: "z", rule: rule, text: text, matched: text, groups: [],
                 box: PixelBox(x: 1, y: 2, width: 30, height: 10), corners: [], confidence: 0.9, track: "1", sequence: 7,
                 time: time, read: text.lowercased(), corrections: 0, known: known, rejected: rejected, evidence: evidence)
}

@Suite("The reading history in SQLite")
struct HistoryStoreTests {
    let folder: URL

    init() throws { folder = try TestSupport.temporaryDirectory() }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private static let kept = [
        match("gate", "plate", "B0ABC123", time: "2026-12-04T20:00:00.000Z",
              known: .entry(KnownEntry(text: "B0ABC123", name: "Alice", distance: 1)),
              evidence: MatchEvidence(frame: "/e/1.jpg", crop: "/e/1-0.crop.jpg")),
        match("gate", "plate", "XY12", time: "2026-12-04T21:00:00.000Z", known: .unknown),
        match("meter", "kwh", "0421", time: "2026-12-04T22:00:00.000Z", rejected: "decreasing"),
    ]

    private func filled(_ name: String) throws -> HistoryStore {
        let store = try HistoryStore(path: path(name), readOnly: false)
        for (index, match) in Self.kept.enumerated() { try store.insert(match, unixTime: Double(index)) }
        return store
    }

    @Test("every member comes back, newest first; a reader sees the writer's rows while it is open")
    func roundTrip() throws {
        let writer = try filled("h.sqlite")
        let reader = try HistoryStore(path: path("h.sqlite"), readOnly: true)
        #expect(try reader.matches(HistoryQuery()) == Self.kept.reversed())
        try writer.insert(match("gate", "plate", "NEW1", time: "2026-12-04T23:00:00.000Z"), unixTime: 9)
        #expect(try reader.matches(HistoryQuery(limit: 1)).map(\.text) == ["NEW1"])
    }

    @Test("the filters narrow the answer", arguments: [
        (HistoryQuery(device: "gate"), ["XY12", "B0ABC123"]),
        (HistoryQuery(rule: "kwh"), ["0421"]),
        (HistoryQuery(since: "2026-12-04T20:30"), ["0421", "XY12"]),
        (HistoryQuery(since: "2026-12-04T21:00:00Z"), ["0421", "XY12"]),
        (HistoryQuery(since: "2026-12-04T21:00:00.001Z"), ["0421"]),
        (HistoryQuery(device: "gate", since: "2026-12-04T20:30"), ["XY12"]),
        (HistoryQuery(limit: 2), ["0421", "XY12"]),
        (HistoryQuery(device: "door"), []),
    ])
    func filters(query: HistoryQuery, texts: [String]) throws {
        let store = try filled("f.sqlite")
        #expect(try store.matches(query).map(\.text) == texts)
    }

    @Test("the newest accepted MATCH of each rule of a camera: a meter's last value at start")
    func lastAccepted() throws {
        let store = try filled("l.sqlite")
        try store.insert(match("meter", "kwh", "0419", time: "2026-12-04T21:30:00.000Z"), unixTime: 10)
        try store.insert(match("meter", "kwh", "0420", time: "2026-12-04T21:40:00.000Z"), unixTime: 11)
        try store.insert(match("meter", "kwh", "0999", time: "2026-12-04T21:50:00.000Z", rejected: "too_fast"), unixTime: 12)
        #expect(try store.lastAccepted(device: "meter").map { "\($0.match.text)@\($0.unixTime)" } == ["0420@11.0"])
        #expect(try store.lastAccepted(device: "gate").map(\.match.text) == ["XY12"])
        #expect(try store.lastAccepted(device: "door").isEmpty)
    }

    @Test("pruning deletes the readings captured before a time")
    func prune() throws {
        let store = try filled("p.sqlite")
        #expect(try store.prune(before: 1.5) == 2)
        #expect(try store.matches(HistoryQuery()).map(\.text) == ["0421"])
    }

    @Test("a file that is not Lector's history is refused, and left as it was", arguments: ["text", "random", "foreign", "missing"])
    func refused(kind: String) throws {
        let file = path(kind + ".sqlite")
        switch kind {
        case "text": try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: file))
        case "random": try Data([UInt8]("SQLite format 3\0".utf8) + (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
            .write(to: URL(fileURLWithPath: file))
        case "foreign": try SQLiteDatabase(path: file, readOnly: false).execute("CREATE TABLE songs (title TEXT)")
        default: break
        }
        let before = FileManager.default.contents(atPath: file)
        for readOnly in [true, false] where kind != "missing" || readOnly {
            #expect(throws: HistoryError.self) { try HistoryStore(path: file, readOnly: readOnly) }
        }
        #expect(FileManager.default.contents(atPath: file) == before)
        do {
            _ = try HistoryStore(path: file, readOnly: true)
        } catch {
            let expected = ["text": "not an SQLite database", "random": "not an SQLite database", "foreign": "other tables",
                            "missing": "unable to open"][kind] ?? ""
            #expect(error.description.contains(expected), "\(error)")
            #expect(error.description.contains(file))
        }
    }
}
