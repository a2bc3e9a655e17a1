import LectorProtocol
@testable import LectorRecognition
import Testing

@Suite("--lang auto: what a read's characters say about its language")
struct LanguageEvidenceTests {
    /// A read of one line, a word per (text, confidence).
    static func read(_ words: [(String, Double)]) -> RecognizedText {
        let words = words.map { TextWord(text: $0.0, box: PixelBox(x: 0, y: 0, width: 10, height: 10), confidence: $0.1) }
        let line = TextLine(box: PixelBox(x: 0, y: 0, width: 10, height: 10), confidence: 0.9, words: words)
        return RecognizedText(blocks: [TextBlock(box: line.box, confidence: 0.9, lines: [line])])
    }

    @Test("whether a read fits the language it was read in", arguments: [
        ([("出口", 0.93), ("在", 0.93), ("左边", 0.96)], "chi_sim", true),
        ([("出口", 0.88), ("在", 0.93), ("左辺", 0.96)], "chi_sim", false),  // a Japanese-only form
        ([("東京駅はこちら", 1.0)], "chi_sim", false),  // kana
        ([("東京駅はこちら", 1.0)], "jpn", true),
        ([("安全出口", 1.0), ("北京西站", 1.0)], "jpn", false),  // Han alone: Chinese reads it too
        ([("出口", 1.0), ("東京駅", 1.0)], "jpn", true),
        ([("Exit", 0.9)], "jpn", false),  // Latin letters: English is read next
        ([("번", 0.61), ("디", 0.85), ("주시!", 0.28)], "kor", false),  // Korean read of a Chinese sign: unsure
        ([("45%", 0.43)], "hin", false),
        ([("0|", 0.88), ("き", 0.93)], "jpn", false),  // one letter decides nothing
        ([("10:42", 0.95)], "eng", true),
        ([("बाज़ार", 0.93), ("बंद", 0.95)], "hin", true),
        ([("Exit", 0.95)], "eng", true),
        ([("Exit", 0.95)], "hin", false),  // letters of another script
        ([], "eng", false),
    ])
    func fits(words: [(String, Double)], language: String, fits: Bool) {
        #expect(LanguageEvidence(Self.read(words), language: language).fits(language) == fits, "\(words) in \(language)")
    }

    @Test("Chinese against Japanese: kana and each one's own forms, read confidently, decide; else the more confident")
    func hanChoice() {
        func better(_ a: [(String, Double)], _ first: String, _ b: [(String, Double)], _ second: String) -> Bool {
            LanguageEvidence(Self.read(a), language: first).isBetter(in: first, than: LanguageEvidence(Self.read(b), language: second), in: second)
        }
        // 出口 / 東京駅 (kanji-only Japanese): Chinese read 駅, which only Japanese writes.
        #expect(better([("出口", 1.0), ("東京駅", 1.0)], "jpn", [("出口", 1.0), ("東京駅", 1.0)], "chi_sim"))
        // 出口在左边: Chinese read 边, Japanese 辺; both confident: the forms tie, the confidence decides.
        #expect(better([("出", 0.97), ("口", 0.97), ("在", 0.97), ("左边", 0.96)], "chi_sim",
                       [("出口", 0.88), ("在", 0.93), ("左辺", 0.96)], "jpn"))
        // Han alone, as confident either way: Chinese.
        #expect(better([("安全出口", 1.0)], "chi_sim", [("安全出口", 1.0)], "jpn"))
        // Kana read confidently by Japanese.
        #expect(better([("お手洗い", 0.9)], "jpn", [("手", 0.85), ("洗", 0.82)], "chi_sim"))
        // Nothing fits: the letters weighted by confidence.
        #expect(better([("出口", 0.6)], "chi_sim", [("번", 0.61)], "kor"))
    }
}
