/// What the recognizer read in one upright image, shaped like ML Kit's and Cloud
/// Vision's result: text → blocks → lines → words (→ symbols, when asked for).
///
/// Boxes are in upright-image pixels; confidences are 0…1.
public struct RecognizedText: Sendable, Equatable {
    public var blocks: [TextBlock]

    public init(blocks: [TextBlock] = []) { self.blocks = blocks }

    /// All text: blocks separated by newlines, lines by newlines, words by spaces.
    public var text: String { blocks.map(\.text).joined(separator: "\n") }

    /// Every word, in reading order.
    public var words: [TextWord] { blocks.flatMap { $0.lines.flatMap(\.words) } }

    /// Every box passed through `map` (a zone's upscaled crop back to the upright image).
    public func mapped(_ map: (PixelBox) -> PixelBox) -> RecognizedText {
        RecognizedText(blocks: blocks.map { block in
            var block = block
            block.box = map(block.box)
            block.lines = block.lines.map { line in
                var line = line
                line.box = map(line.box)
                line.words = line.words.map { word in
                    var word = word
                    word.box = map(word.box)
                    word.symbols = word.symbols.map { symbol in
                        var symbol = symbol
                        symbol.box = map(symbol.box)
                        return symbol
                    }
                    return word
                }
                return line
            }
            return block
        })
    }

    /// Every box multiplied by `factor` and moved by (`dx`, `dy`): maps results of a
    /// downscaled or cropped image back to the full upright image.
    public func mapped(scale factor: Int, dx: Int = 0, dy: Int = 0) -> RecognizedText {
        guard factor != 1 || dx != 0 || dy != 0 else { return self }
        return mapped { $0.scaled(by: factor).offset(dx: dx, dy: dy) }
    }
}

/// A block of text (a paragraph or column).
public struct TextBlock: Sendable, Equatable {
    public var box: PixelBox
    public var confidence: Double
    /// The language most of its words were recognized in, e.g. `eng`.
    public var language: String?
    public var lines: [TextLine]
    /// The zone it was read in (`[zone CAMERA/ZONE]`'s ZONE); nil without zones.
    public var zone: String?

    public init(box: PixelBox, confidence: Double, language: String? = nil, lines: [TextLine], zone: String? = nil) {
        self.zone = zone
        self.box = box
        self.confidence = confidence
        self.language = language
        self.lines = lines
    }

    public var text: String { lines.map(\.text).joined(separator: "\n") }
}

/// One line of text.
public struct TextLine: Sendable, Equatable {
    public var box: PixelBox
    public var confidence: Double
    public var words: [TextWord]
    /// The line engine that read it (`tesseract` or `neural`); nil: Tesseract's own
    /// layout, or not said.
    public var engine: String?

    public init(box: PixelBox, confidence: Double, words: [TextWord], engine: String? = nil) {
        self.box = box
        self.confidence = confidence
        self.words = words
        self.engine = engine
    }

    public var text: String { words.map(\.text).joined(separator: " ") }
}

/// One word.
public struct TextWord: Sendable, Equatable {
    public var text: String
    public var box: PixelBox
    public var confidence: Double
    public var language: String?
    /// Characters, only when the recognizer was asked for symbols.
    public var symbols: [TextSymbol]
    /// What the recognizer ranked next at some of its characters (lectord's rules prefer
    /// those look-alikes); not on the wire: a decoded word has none.
    public var alternatives: [CharacterAlternative] = []

    public init(text: String, box: PixelBox, confidence: Double, language: String? = nil, symbols: [TextSymbol] = []) {
        self.text = text
        self.box = box
        self.confidence = confidence
        self.language = language
        self.symbols = symbols
    }
}

/// One character.
public struct TextSymbol: Sendable, Equatable {
    public var text: String
    public var box: PixelBox
    public var confidence: Double

    public init(text: String, box: PixelBox, confidence: Double) {
        self.text = text
        self.box = box
        self.confidence = confidence
    }
}
