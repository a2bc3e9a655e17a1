import Foundation
import LectorProtocol
import LectorSystem

/// Assembles Tesseract's flat iteration (block starts, line starts, words, symbols)
/// into a ``RecognizedText`` tree.
///
/// Whitespace-only words are dropped, with their symbols; lines and blocks left without
/// words are dropped too. A line's or block's box is the union of what it keeps and its
/// confidence the mean of its words', so a dropped page-wide whitespace "word" cannot
/// inflate either.
package struct TreeBuilder {
    private var blocks: [TextBlock] = []
    private var lines: [TextLine] = []
    private var words: [TextWord] = []
    private var wordOpen = false

    package mutating func startBlock() {
        closeLine()
        closeBlock()
    }

    package mutating func startLine() { closeLine() }

    package mutating func addWord(text: String, box: PixelBox, confidence: Double, language: String?) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        wordOpen = !trimmed.isEmpty && box.width > 0 && box.height > 0
        guard wordOpen else { return }
        words.append(TextWord(text: trimmed, box: box, confidence: confidence, language: language))
    }

    /// What the recognizer ranked next at characters of the open word (offsets in its text).
    package mutating func addAlternatives(_ alternatives: [CharacterAlternative]) {
        guard wordOpen, !words.isEmpty else { return }
        words[words.count - 1].alternatives += alternatives
    }

    package mutating func addSymbol(_ symbol: TextSymbol) {
        guard wordOpen, !words.isEmpty else { return }
        words[words.count - 1].symbols.append(symbol)
    }

    package mutating func finish() -> RecognizedText {
        closeLine()
        closeBlock()
        return RecognizedText(blocks: blocks)
    }

    private mutating func closeLine() {
        wordOpen = false
        guard let first = words.first else { return }
        let box = words.dropFirst().reduce(first.box) { $0.union($1.box) }
        lines.append(TextLine(box: box, confidence: Self.mean(words.map(\.confidence)), words: words))
        words.removeAll(keepingCapacity: true)
    }

    private mutating func closeBlock() {
        guard let first = lines.first else { return }
        let box = lines.dropFirst().reduce(first.box) { $0.union($1.box) }
        let lineWords = lines.flatMap(\.words)
        blocks.append(TextBlock(box: box, confidence: Self.mean(lineWords.map(\.confidence)),
                                language: Self.mostCommon(lineWords.compactMap(\.language)), lines: lines))
        lines.removeAll(keepingCapacity: true)
    }

    /// The mean of `values`, 0 for none (a block's or line's confidence).
    package static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }

    /// The value that occurs most often (ties: the smallest), nil for none (a block's language).
    package static func mostCommon(_ values: [String]) -> String? {
        var counts: [String: Int] = [:]
        for value in values { counts[value, default: 0] += 1 }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }
}
