import Foundation
@testable import LectorPipeline
import LectorProtocol
import Testing

/// Readings you can act on (issue 37): the look-alike corrector, known lists, one event
/// per appearance and the meter checks, each alone (pure), and a rule reader on them.
@Suite("Readings: look-alikes, known lists, appearances, meters")
struct ReadingRuleTests {
    static func matcher(_ pattern: String) -> (String) -> Bool {
        let expression = try! NSRegularExpression(pattern: pattern)
        return { expression.firstMatch(in: $0, range: NSRange(location: 0, length: ($0 as NSString).length)) != nil }
    }

    @Test("the format decides the look-alikes, fewest swaps first", arguments: [
        ("B0ABC123", "^[A-Z]{2}[A-Z]{3}[0-9]{3}$", "BOABC123", 1),
        ("BOABC123", "^[A-Z]{2}[A-Z]{3}[0-9]{3}$", "BOABC123", 0),
        ("8O4Z1S7", "^[0-9]{7}$", "8042157", 3),
        ("O4217935", "^[0-9]{8}$", "04217935", 1),
        ("l234567", "^[0-9]{7}$", "1234567", 1),
        ("G0LF", "^[A-Z]{4}$", "GOLF", 1),
    ])
    func corrects(read: String, pattern: String, expected: String, swaps: Int) {
        let corrected = LookAlike.correct(read, accepts: Self.matcher(pattern))
        #expect(corrected?.text == expected, "\(read) under \(pattern)")
        #expect(corrected?.swaps == swaps)
    }

    @Test("no look-alike makes it match: nil", arguments: [("WXYZ", "^[0-9]{4}$"), ("12345", "^[0-9]{6}$")])
    func refuses(read: String, pattern: String) {
        #expect(LookAlike.correct(read, accepts: Self.matcher(pattern)) == nil)
    }

    @Test("a swap the recognizer ranked close wins among as few swaps")
    func ranksByRecognizer() {
        // "0" can be O, D or Q; the table prefers O, the recognizer's second choice was D.
        let accepts: (String) -> Bool = { $0.count == 3 && $0.first!.isLetter }
        #expect(LookAlike.correct("0AB", accepts: accepts)?.text == "OAB")
        #expect(LookAlike.correct("0AB", closeness: { position, character in position == 0 && character == "D" ? 0.4 : nil },
                                  accepts: accepts)?.text == "DAB")
    }

    static let plate = "^[A-Z]{3}[0-9]{3}$"
    static let mixed = "^(?:[A-Z][0-9]|[0-9][A-Z])[0-9]{2}$"

    @Test("a rule prefers the look-alike its recognizer ranked next over the table's order", arguments: [
        // (line as read, the recognizer's alternatives (offset in the line, character, probability), pattern, expected)
        ("0AB 123", [], plate, "OAB123"),                                 // the table: O before D and Q
        ("0AB 123", [(0, "D", 0.4)], plate, "DAB123"),
        ("0AB 123", [(0, "Q", 0.1), (0, "D", 0.05)], plate, "QAB123"),
        ("0AB 123", [(1, "4", 0.6)], plate, "OAB123"),                    // not a look-alike of its place: the table
        ("SS 12", [], mixed, "5S12"),                                     // two places, one swap: the first place
        ("SS 12", [(1, "5", 0.45)], mixed, "S512"),                       // the place the recognizer doubted
    ] as [(String, [(Int, Character, Double)], String, String)])
    func ranked(line: String, alternatives: [(Int, Character, Double)], pattern: String, expected: String) throws {
        var spec = RuleSpec(name: "plate", pattern: pattern)
        spec.alike = true
        let reader = try RuleReader(spec: spec)
        let reading = reader.reading(of: line, alternatives: alternatives.map { CharacterAlternative(offset: $0.0, character: $0.1, probability: $0.2) })
        #expect(reading?.text == expected)
        #expect(reading?.swaps == 1)
    }

    @Test("a known entry's appearance holds other readings back, for repeat_after at most")
    func holdsBack() {
        var memory = AppearanceMemory(repeatAfter: 30)
        #expect(!memory.holdsBack(now: 0, except: "9"), "nothing known in view")
        do { let admitted = memory.admit(identity: "EXIT79B", known: false, track: "1", now: 0); #expect(admitted, "a sign before the car") }
        #expect(!memory.holdsBack(now: 1, except: "9"), "an unknown reading holds nothing back")
        do { let admitted = memory.admit(identity: "WA56660", known: true, track: "2", now: 2); #expect(admitted, "the known car") }
        #expect(memory.holdsBack(now: 3, except: "3"), "the car's lettering waits")
        #expect(!memory.holdsBack(now: 3, except: "2"), "the known car's own track is not held back")
        #expect(!memory.holdsBack(now: 32, except: "3"), "repeat_after after the known car came, what is still in view is news")
        memory.gone(track: "2", lastSeen: 5)
        #expect(!memory.holdsBack(now: 6, except: "3"), "the known car gone")
        do { let admitted = memory.admit(identity: "FEDEX", known: false, track: "3", now: 6); #expect(admitted, "then what it held back") }
    }

    @Test("separators and emblems are left out; folding", arguments: [
        ("WA 56660", "WA56660", "WA56660"), ("OSG=719", "OSG719", "056719"), ("SI-819.AK", "SI819AK", "51819AK"),
        ("b0abc", "b0abc", "80A8C"),
    ])
    func compactsAndFolds(text: String, compact: String, folded: String) {
        #expect(LookAlike.compacted(text) == compact)
        #expect(LookAlike.folded(LookAlike.compacted(text)) == folded)
    }

    static let list = "# gate\nB0ABC123\tAlice\nWA56660\n\nKCS1M\tthe van\n"

    @Test("a known list takes readings within max_distance after folding", arguments: [
        ("BOABC123", 1, "B0ABC123", 0), ("BO ABC 123", 1, "B0ABC123", 0), ("B0ABC12", 1, "B0ABC123", 1),
        ("WA5666O", 1, "WA56660", 0), ("WA566", 1, nil, nil), ("WA566", 2, "WA56660", 2), ("XYZ999", 1, nil, nil),
    ] as [(String, Int, String?, Int?)])
    func looksUp(reading: String, maxDistance: Int, entry: String?, distance: Int?) throws {
        let known = try KnownList(path: "/k", contents: Self.list)
        let found = known.lookup(reading, maxDistance: maxDistance)
        #expect(found.entry?.text == entry)
        #expect(found.entry?.distance == distance)
        if entry == nil { #expect(found == .unknown) }
    }

    @Test("names come from TEXT<TAB>NAME")
    func names() throws {
        let known = try KnownList(path: "/k", contents: Self.list)
        #expect(known.entries.map(\.name) == ["Alice", nil, "the van"])
        #expect(known.lookup("B0ABC123", maxDistance: 0).entry?.name == "Alice")
    }

    @Test("a bad known list is refused at its line", arguments: [
        ("AB1\n\n#x\n---\n", 4), ("AB1\tname\nCD2\t\n", 2), ("AB1\nAB1\n", 2), ("AB1\nA81\n", 2),
    ])
    func refusesBadList(contents: String, line: Int) {
        #expect(throws: KnownList.Problem.self) { try KnownList(path: "/etc/lector/plates", contents: contents) }
        do {
            _ = try KnownList(path: "/etc/lector/plates", contents: contents)
        } catch {
            #expect(error.line == line)
            #expect(error.description.hasPrefix("/etc/lector/plates:\(line): "))
        }
    }

    @Test("one event per appearance")
    func appearances() {
        var memory = AppearanceMemory(repeatAfter: 30)
        do { let admitted = memory.admit(identity: "B0ABC123", known: true, track: "1", now: 0); #expect(admitted, "a new car") }
        do { let admitted = memory.admit(identity: "B0ABC12", known: false, track: "1", now: 1); #expect(!admitted, "its vote moving is not a new car") }
        do { let admitted = memory.admit(identity: "B0ABC123", known: true, track: "2", now: 2); #expect(!admitted, "a second track of it while in view") }
        memory.saw(track: "1", now: 10)
        memory.gone(track: "1", lastSeen: 10)
        memory.gone(track: "2", lastSeen: 10)
        do { let admitted = memory.admit(identity: "B0ABC123", known: true, track: "3", now: 35); #expect(!admitted, "back 25 s after it was gone") }
        memory.gone(track: "3", lastSeen: 35)
        do { let admitted = memory.admit(identity: "B0ABC123", known: true, track: "4", now: 70); #expect(admitted, "back 35 s after it was gone") }
        do { let admitted = memory.admit(identity: "WA56660", known: true, track: "5", now: 70); #expect(admitted, "another car at once") }
    }

    @Test("a track that becomes known is news once")
    func upgrade() {
        var memory = AppearanceMemory(repeatAfter: 30)
        do { let admitted = memory.admit(identity: "OSG71", known: false, track: "1", now: 0); #expect(admitted) }
        do { let admitted = memory.admit(identity: "0SG719", known: true, track: "1", now: 1); #expect(admitted) }
        do { let admitted = memory.admit(identity: "0SG719", known: true, track: "1", now: 2); #expect(!admitted) }
        do { let admitted = memory.admit(identity: "XSG719", known: false, track: "1", now: 3); #expect(!admitted) }
    }

    @Test("a reading announced as not known that becomes known (the list edited) is news")
    func becomesKnown() {
        var memory = AppearanceMemory(repeatAfter: 30)
        do { let admitted = memory.admit(identity: "WA56660", known: false, track: "1", now: 0); #expect(admitted) }
        memory.gone(track: "1", lastSeen: 1)
        do { let admitted = memory.admit(identity: "WA56660", known: false, track: "2", now: 3); #expect(!admitted) }
        do { let admitted = memory.admit(identity: "WA56660", known: true, track: "2", now: 4); #expect(admitted) }
        do { let admitted = memory.admit(identity: "WA56660", known: true, track: "3", now: 5); #expect(!admitted) }
    }

    @Test("meter values", arguments: [("04217935", 4217935.0), ("1234.5", 1234.5), ("12 345,6", 12345.6), ("12a4", nil), ("", nil)]
          as [(String, Double?)])
    func meterValue(text: String, value: Double?) {
        #expect(MeterCheck.value(of: text) == value)
    }

    @Test("a meter never goes down nor jumps; agreeing readings are a reset", arguments: [
        // (readings as (value, seconds), monotonic, max_rate, reset_after, expected verdicts)
        ([(100, 0), (101, 10), (99, 20), (102, 30)], true, nil, 2, ["unconfirmed", nil, "went_down", nil]),
        ([(100, 0), (100, 3600), (160, 7200), (150, 7201)], false, 50, 2, ["unconfirmed", nil, "too_fast", nil]),
        ([(100, 0), (90, 10)], true, nil, 1, [nil, nil]),
        ([(900, 0), (5, 10), (6, 20), (7, 30), (8, 40)], true, nil, 3, ["unconfirmed", "unconfirmed", "unconfirmed", nil, nil]),
        ([(800, 0), (90, 1), (100, 2), (110, 3), (5, 10), (6, 20), (7, 30), (8, 40)], true, nil, 3,
         ["unconfirmed", "unconfirmed", "unconfirmed", nil, "went_down", "went_down", nil, nil]),
        ([(90, 0), (100, 2), (110, 3), (5, 10), (1, 20), (6, 30)], true, nil, 3, ["unconfirmed", "unconfirmed", nil, "went_down", "went_down", "went_down"]),
    ] as [([(Double, Double)], Bool, Double?, Int, [String?])])
    func meter(readings: [(Double, Double)], monotonic: Bool, maxRate: Double?, resetAfter: Int, verdicts: [String?]) {
        var check = MeterCheck(monotonic: monotonic, maximumRate: maxRate, resetAfter: resetAfter)
        let judged = readings.map { check.judge($0.0, at: $0.1)?.rawValue }
        #expect(judged == verdicts)
    }

    @Test("a first value is accepted once the same value was read in reset_after frames", arguments: [
        // (judged value, then the values frames read; reset_after 3; the frame that accepts it, nil: none)
        (100.0, [100.0, 100.0, 100.0], 1), (100.0, [100.0, 99.0, 100.0], 2), (100.0, [99.0, 98.0, 101.0], nil),
    ] as [(Double, [Double], Int?)])
    func firstValue(judged: Double, frames: [Double], accepting: Int?) {
        var check = MeterCheck(monotonic: true, maximumRate: nil, resetAfter: 3)
        #expect(check.judge(judged, at: 0) == .unconfirmed)
        let accepted = frames.enumerated().first { check.saw($0.element, at: Double($0.offset + 1)) }?.offset
        #expect(accepted == accepting)
        #expect(check.last?.value == (accepting == nil ? nil : judged))
        if accepting != nil { #expect(check.judge(judged - 1, at: 10) == .wentDown) }
    }

    @Test("a meter restored from the history checks its next reading against its value")
    func restored() {
        var check = MeterCheck(monotonic: true, maximumRate: 10, resetAfter: 3)
        check.remember(100, at: -3600)
        #expect(check.judge(105, at: 0) == nil)
        #expect(check.judge(104, at: 1) == .wentDown)
        #expect(check.judge(500, at: 2) == .tooFast)
    }

    @Test("a rule reader corrects, folds and finds a known plate among a line's words", arguments: [
        ("OSG=719 Heatlag and Colling", "OSG719", "0SG719"), ("Metro 2DA044", "2DA044", "2DA044"), ("SI-819AK FELICIA", "SI819AK", "SI819AK"),
        ("W=053011", "W053011", "W053011"), ("NORTH", "NORTH", nil),
    ] as [(String, String, String?)])
    func reader(line: String, text: String, known: String?) throws {
        var spec = RuleSpec(name: "plate", pattern: "^[A-Z0-9]{5,8}$")
        spec.alike = true
        spec.known = try KnownList(path: "/k", contents: "0SG719\n2DA044\nSI819AK\nW053011\n")
        let reading = try RuleReader(spec: spec).reading(of: line)
        #expect(reading?.text == text)
        #expect(reading?.known?.entry?.text == known)
    }
}

@Suite("Meter displays: a fixed decimal point, digit positions, finite values")
struct MeterDisplayTests {
    @Test("decimals places the point whether or not it was read", arguments: [
        ("265775", 1, "26577.5"), ("26577.5", 1, "26577.5"), ("2657.75", 1, "26577.5"), ("26 577,5", 1, "26577.5"),
        ("004824.0", 1, "004824.0"), ("0048240", 1, "004824.0"), ("3301", 2, "33.01"), ("33.01", 0, "3301"),
        ("5", 1, "5"), ("1.2.3", 1, "1.2.3"), ("kWh 12", 1, "kWh 12"),
    ] as [(String, Int, String)])
    func places(read: String, decimals: Int, shown: String) {
        #expect(MeterDisplay(decimals: decimals).placed(read) == shown)
    }

    @Test("without decimals the text is as read")
    func asRead() { #expect(MeterDisplay(digits: 6).placed("2657.75") == "2657.75") }

    @Test("digits: fewer is a missing digit, more is too many; 15 at most without digits", arguments: [
        ("26577.5", 6, nil), ("2657.5", 6, "missing_digit"), ("0012240", 7, nil), ("12240", 7, "missing_digit"),
        ("1226577.5", 6, "too_many_digits"), (String(repeating: "9", count: 15), nil, nil),
        (String(repeating: "9", count: 16), nil, "too_many_digits"), (String(repeating: "9", count: 320), nil, "too_many_digits"),
    ] as [(String, Int?, String?)])
    func digits(matched: String, digits: Int?, rejection: String?) {
        #expect(MeterDisplay(digits: digits).rejection(of: matched)?.rawValue == rejection)
    }

    @Test("a value that is not finite as a Double is no number")
    func finite() {
        #expect(MeterCheck.value(of: String(repeating: "9", count: 320)) == nil)
        #expect(MeterCheck.value(of: String(repeating: "9", count: 15)) == 999_999_999_999_999)
    }

    @Test("the rule's match applies to the reading with the point placed", arguments: [
        ("265775", false, "26577.5"), ("26577.5", false, "26577.5"), ("2G5775", true, "26577.5"), ("26577", false, nil),
    ] as [(String, Bool, String?)])
    func reader(line: String, alike: Bool, text: String?) throws {
        var spec = RuleSpec(name: "kwh", pattern: #"^\d{5}\.\d$"#)
        spec.alike = alike
        spec.display = MeterDisplay(decimals: 1, digits: 6)
        #expect(try RuleReader(spec: spec).reading(of: line)?.text == text)
    }
}
