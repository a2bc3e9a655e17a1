@testable import LectorDetector
import LectorProtocol
import Testing

/// What of a read line is said (issue 46): the neural recognizer's unsure words are left
/// out, Tesseract's words are kept as its read kept them.
@Suite("The words said")
struct UnsureWordsTests {
    static func word(_ text: String, _ confidence: Double) -> TextWord {
        TextWord(text: text, box: PixelBox(x: 0, y: 0, width: 10, height: 10), confidence: confidence)
    }

    @Test("a neural word below the threshold is not said; Tesseract's are", arguments: [
        ("neural", [("EXIT", 0.97), ("7I", 0.35), ("GITY", 0.80)], ["EXIT", "GITY"]),
        ("neural", [("ca", 0.40), ("25", 0.22)], []),
        ("neural", [("Ramn", UnsureWords.minimumNeuralConfidence - 0.01)], []),
        ("tesseract", [("MORE", 0.96), ("re", 0.12)], ["MORE", "re"]),
    ])
    func said(engine: String, words: [(String, Double)], said: [String]) {
        let kept = UnsureWords.said(words.map { Self.word($0.0, $0.1) }, engine: engine)
        #expect(kept.map(\.text) == said)
    }
}
