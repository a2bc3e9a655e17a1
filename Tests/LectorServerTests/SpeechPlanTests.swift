import Foundation
@testable import lector
import LectorProtocol
import LectorSystem
import Testing

/// `lector speak`'s logic without sound: what is said, in which order, and when speech is cut.
@Suite("lector speak")
struct SpeechPlanTests {
    static let start = MonotonicInstant.now()
    static func at(_ seconds: Double) -> MonotonicInstant { start.adding(milliseconds: seconds * 1000) }
    static let box = PixelBox(x: 0, y: 0, width: 100, height: 20)

    /// A TEXT whose blocks hold lines placed in these tracks, in this order.
    static func text(_ blocks: [(language: String?, tracks: [String])]) -> TextMessage {
        let elements = blocks.map { block in
            TextElement(text: "", box: box, corners: [], confidence: 0.9, language: block.language,
                        children: block.tracks.map { TextElement(text: "line \($0)", box: box, corners: [], confidence: 0.9, track: $0) })
        }
        return TextMessage(device: "demo", sequence: 0, time: "", orientation: .up, width: 640, height: 480, text: "",
                           blocks: elements, recognizeMilliseconds: 1)
    }

    static func track(_ id: String, _ event: TrackMessage.Event = .new, _ text: String? = nil, confidence: Double = 0.9,
                      y: Int = 0) -> TrackMessage {
        TrackMessage(device: "demo", id: id, event: event, text: text ?? "line \(id)", box: PixelBox(x: 0, y: y, width: 100, height: 20),
                     corners: [], confidence: confidence, observations: 3, firstSeen: "", lastSeen: "")
    }

    /// Says everything due at `time`, whole; returns the texts said.
    static func sayAll(_ plan: inout SpeechPlan, at time: Double) -> [String] {
        var said: [String] = []
        while let utterance = plan.next(now: at(time)) {
            said.append(utterance.text)
            plan.finished(completely: true, now: at(time))
        }
        return said
    }

    @Test("lines are said in the latest text's reading order, whatever order they settled in")
    func readingOrder() {
        var plan = SpeechPlan(settings: SpeakSettings())
        _ = plan.text(Self.text([("eng", ["1", "2"]), ("eng", ["3"])]))
        for id in ["3", "1", "2"] { _ = plan.track(Self.track(id), now: Self.at(0)) }
        #expect(Self.sayAll(&plan, at: 0) == ["line 1", "line 2", "line 3"])
    }

    @Test("the first settled line waits up to the grace for the others of its text")
    func grace() {
        var plan = SpeechPlan(settings: SpeakSettings())
        _ = plan.text(Self.text([("eng", ["1", "2"])]))
        _ = plan.track(Self.track("2"), now: Self.at(0))
        #expect(plan.next(now: Self.at(0.5)) == nil, "line 1 has not settled yet")
        _ = plan.track(Self.track("1"), now: Self.at(0.6))
        #expect(Self.sayAll(&plan, at: 0.6) == ["line 1", "line 2"])
        var alone = SpeechPlan(settings: SpeakSettings())
        _ = alone.text(Self.text([("eng", ["1", "2"])]))
        _ = alone.track(Self.track("2"), now: Self.at(0))
        #expect(Self.sayAll(&alone, at: SpeakSettings.orderGraceSeconds + 0.1) == ["line 2"], "a line that never settles holds nothing up for long")
    }

    @Test("while the latest text is a partial read, a settled line waits longer for the lines above it")
    func partialRead() {
        var plan = SpeechPlan(settings: SpeakSettings())
        var partial = Self.text([("eng", ["2"])])
        partial.unreadLines = 1
        _ = plan.text(partial)
        _ = plan.track(Self.track("2", y: 100), now: Self.at(0))
        #expect(plan.next(now: Self.at(SpeakSettings.orderGraceSeconds + 0.5)) == nil, "the line above is not read yet")
        _ = plan.text(Self.text([("eng", ["3", "2"])]))
        _ = plan.track(Self.track("3", y: 10), now: Self.at(2))
        #expect(Self.sayAll(&plan, at: 2) == ["line 3", "line 2"])
        var alone = SpeechPlan(settings: SpeakSettings())
        _ = alone.text(partial)
        _ = alone.track(Self.track("2"), now: Self.at(0))
        #expect(Self.sayAll(&alone, at: SpeakSettings.partialGraceSeconds + 0.1) == ["line 2"])
    }

    @Test("the same text is said again only after --repeat-after; a cut one at once", arguments: [
        // (was the first saying whole, seconds later, the same text again (case, spaces), said again)
        (true, 10.0, "LINE  1", false), (true, 61.0, "line 1", true), (false, 1.0, "line 1", true),
    ])
    func repeats(whole: Bool, later: Double, again: String, saidAgain: Bool) {
        var plan = SpeechPlan(settings: SpeakSettings())
        _ = plan.text(Self.text([("eng", ["1"])]))
        _ = plan.track(Self.track("1"), now: Self.at(0))
        #expect(plan.next(now: Self.at(0))?.text == "line 1")
        plan.finished(completely: whole, now: Self.at(1))
        _ = plan.text(Self.text([("eng", ["9"])]))
        _ = plan.track(Self.track("9", .new, again), now: Self.at(later))
        #expect(Self.sayAll(&plan, at: later) == (saidAgain ? [again] : []))
    }

    @Test("a new scene or the spoken line leaving cuts speech and drops what was waiting", arguments: [
        // (what comes while line 1 is said, cut, still waiting)
        ("text of another scene", true, [String]()), ("text of the same scene", false, ["line 2"]),
        ("line 1 gone", true, ["line 2"]), ("line 2 gone", false, []), ("text without lines", false, ["line 2"]),
    ])
    func interruptions(event: String, cut: Bool, waiting: [String]) {
        var plan = SpeechPlan(settings: SpeakSettings())
        _ = plan.text(Self.text([("eng", ["1", "2"])]))
        _ = plan.track(Self.track("1"), now: Self.at(0))
        _ = plan.track(Self.track("2"), now: Self.at(0))
        #expect(plan.next(now: Self.at(0))?.track == "1")
        let result: SpeechPlan.Interruption
        switch event {
        case "text of another scene": result = plan.text(Self.text([("eng", ["7", "8"])]))
        case "text of the same scene": result = plan.text(Self.text([("eng", ["2", "5"])]))
        case "line 1 gone": result = plan.track(Self.track("1", .gone), now: Self.at(1))
        case "line 2 gone": result = plan.track(Self.track("2", .gone), now: Self.at(1))
        default: result = plan.text(Self.text([]))
        }
        #expect(result == (cut ? .cut : .none))
        #expect(plan.waiting == waiting)
    }

    @Test("voices: from the block's language, --voice over it; --min-confidence", arguments: [
        ("fra", nil, 0.9, "fr"), ("chi_sim", nil, 0.9, "cmn"), ("eng+deu", nil, 0.9, "en"), ("xyz", nil, 0.9, "en"),
        (nil, nil, 0.9, "en"), ("fra", "en-gb", 0.9, "en-gb"), ("jpn", nil, 0.4, nil),
    ] as [(String?, String?, Double, String?)])
    func voices(language: String?, voice: String?, confidence: Double, expected: String?) {
        var settings = SpeakSettings()
        settings.voice = voice
        settings.minimumConfidence = 0.5
        var plan = SpeechPlan(settings: settings)
        _ = plan.text(Self.text([(language, ["1"])]))
        _ = plan.track(Self.track("1", confidence: confidence), now: Self.at(0))
        #expect(plan.next(now: Self.at(0))?.voice == expected)
    }

    @Test("Tesseract languages map to espeak-ng voices", arguments: [
        ("eng", "en"), ("deu", "de"), ("spa", "es"), ("chi_tra", "cmn"), ("jpn", "ja"), ("kor", "ko"), ("hin", "hi"),
        ("rus", "ru"), ("osd", "en"),
    ])
    func voiceTable(language: String, voice: String) {
        #expect(EspeakVoice.voice(forTesseractLanguage: language) == voice)
    }

    @Test("lector speak's options", arguments: [
        (["speak"], true), (["speak", "--rate", "300", "--voice", "fr", "--device", "demo", "--wav", "/tmp/x"], true),
        (["speak", "--min-confidence", "0.7", "--repeat-after", "0"], true), (["speak", "--rate", "79"], false),
        (["speak", "--rate", "451"], false), (["speak", "--voice", "-x"], false), (["speak", "--wav", ""], false),
        (["speak", "--repeat-after", "-1"], false), (["speak", "--tracks"], false),
    ])
    func options(arguments: [String], valid: Bool) {
        #expect(((try? ClientCommand.parse(arguments)) != nil) == valid)
    }

    @Test("a WAV cut where speech stopped keeps whole sample frames and a consistent header")
    func wavTruncation() throws {
        let path = NSTemporaryDirectory() + "lector-speak-\(getpid()).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // 1 s of 16-bit mono at 22050 Hz, as espeak-ng writes it.
        var bytes = Array("RIFF".utf8) + le(36 + 44100) + Array("WAVEfmt ".utf8) + le(16) + [1, 0, 1, 0] + le(22050) + le(44100)
        bytes += [2, 0, 16, 0] + Array("data".utf8) + le(44100) + [UInt8](repeating: 7, count: 44100)
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let wav = try WAVFile(path: path)
        #expect(abs(wav.seconds - 1) < 1e-9)
        try wav.truncate(toSeconds: 0.25001)
        let cut = try WAVFile(path: path)
        #expect(cut.dataBytes == 11024 && abs(cut.seconds - 0.25) < 0.001)
        let written = try #require(FileManager.default.contents(atPath: path))
        #expect(written.count == 44 + 11024 && Array(written[4..<8]) == le(36 + 11024))
    }

    private func le(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
}
