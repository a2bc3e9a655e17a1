import Foundation
@testable import LectorDetector
@testable import LectorEngine
@testable import LectorImaging
@testable import LectorProtocol
@testable import LectorRecognition
import LectorTestSupport
import Testing

/// The neural line recognizer: greedy CTC decoding on tables (no model), and the real
/// network (PP-OCRv6 on ONNX Runtime) on the rendered fixture's lines when
/// scripts/fetch-engine-model installed it.
@Suite("Neural line recognizer", .serialized)
struct NeuralEngineTests {
    /// The installed models, or nil (the tests that need one are then skipped).
    static let latinModel: String? = NeuralLineEngine.isBuilt ? try? NeuralModel.locate(explicit: nil, variant: .latin) : nil
    static let fullModel: String? = NeuralLineEngine.isBuilt ? try? NeuralModel.locate(explicit: nil, variant: .full) : nil
    static let skipped: Comment = "needs ONNX Runtime at build time and the model of scripts/fetch-engine-model"

    // MARK: CTC decoding

    /// Characters of the decoding table: class 1 "a" ... class 5 "2", class 6 space.
    static let characters = ["a", "b", "c", "1", "2"]

    struct DecodingCase: Sendable, CustomTestStringConvertible {
        let name: String
        let classes: [Int]
        let words: [String]
        var testDescription: String { name }
    }

    static let decodingCases = [
        DecodingCase(name: "no steps", classes: [], words: []),
        DecodingCase(name: "blanks only", classes: [0, 0, 0], words: []),
        DecodingCase(name: "class i is character i - 1", classes: [1, 2, 3, 4, 5], words: ["abc12"]),
        DecodingCase(name: "repeats collapse", classes: [1, 1, 1, 2, 2, 3], words: ["abc"]),
        DecodingCase(name: "a blank separates a doubled letter", classes: [1, 1, 0, 1, 0, 0, 2], words: ["aab"]),
        DecodingCase(name: "blanks around are dropped", classes: [0, 0, 3, 0, 0], words: ["c"]),
        DecodingCase(name: "the last class is a space between words", classes: [1, 0, 6, 6, 0, 2, 3], words: ["a", "bc"]),
        DecodingCase(name: "leading and trailing spaces make no word", classes: [6, 0, 4, 5, 0, 6], words: ["12"]),
        DecodingCase(name: "spaces only", classes: [6, 0, 6], words: []),
    ]

    @Test("greedy CTC decoding", arguments: decodingCases)
    func decoding(_ example: DecodingCase) {
        let steps = example.classes.enumerated().map { CTCDecoding.Step($0.element, 0.5 + Double($0.offset % 5) / 10) }
        let line = CTCDecoding.decode(steps, characters: Self.characters)
        #expect(line.words.map(\.text) == example.words, "\(example.classes)")
        #expect(line.text == example.words.joined(separator: " "))
        // Spans: inside the line, in order, not overlapping, each symbol's run inside its span.
        var last = 0.0
        for word in line.words {
            for symbol in word.symbols {
                #expect(symbol.span.lowerBound >= last - 1e-9 && symbol.span.upperBound <= Double(steps.count) + 1e-9,
                        "\(symbol.text) spans \(symbol.span) after \(last)")
                #expect(symbol.span.contains((Double(symbol.steps.lowerBound) + Double(symbol.steps.upperBound)) / 2))
                last = symbol.span.upperBound
            }
        }
    }

    @Test("confidence is the mean probability of the kept steps (each run's first), spaces included")
    func confidence() {
        let steps = [CTCDecoding.Step(1, 0.9), CTCDecoding.Step(1, 0.1), CTCDecoding.Step(0, 0.99), CTCDecoding.Step(6, 0.6),
                     CTCDecoding.Step(2, 0.3)]
        let line = CTCDecoding.decode(steps, characters: Self.characters)
        #expect(line.words.map(\.text) == ["a", "b"])
        #expect(abs(line.confidence - (0.9 + 0.6 + 0.3) / 3) < 1e-9)
        #expect(abs(line.words[0].confidence - 0.9) < 1e-9 && abs(line.words[1].confidence - 0.3) < 1e-9)
        #expect(line.words[0].symbols[0].steps == 0..<2)
    }

    @Test("per step the most probable allowed class and the likeliest other non-blank one", arguments: [
        // (one row of 7 probabilities: blank, a, b, c, 1, 2, space; mask; taken, runner-up)
        ([0.1, 0.6, 0.25, 0.05, 0, 0, 0], nil, 1, 2),
        ([0.7, 0.2, 0.05, 0.05, 0, 0, 0], nil, 0, 1),        // blank taken: the runner-up is a character
        ([0.3, 0.5, 0, 0, 0, 0.2, 0], nil, 1, 5),            // blank is never a runner-up
        ([0.1, 0.6, 0.25, 0.05, 0, 0, 0], [1, 0, 1, 1, 0, 0, 1] as [UInt8], 2, 3), // a whitelist
        ([0.1, 0.895, 0.005, 0, 0, 0, 0], nil, 1, nil),      // below minimumRunnerUp: none
    ] as [([Float], [UInt8]?, Int, Int?)])
    func stepsOfOutput(row: [Float], allowed: [UInt8]?, taken: Int, runnerUp: Int?) {
        let steps = row.withUnsafeBufferPointer { CTCDecoding.steps(output: $0, classes: 7, allowed: allowed) }
        #expect(steps.count == 1)
        #expect(steps.first?.classIndex == taken)
        #expect(steps.first?.runnerUp?.classIndex == runnerUp)
    }

    @Test("a symbol keeps the likeliest runner-up of its run: its word's alternatives")
    func runnersUp() {
        // "a1 b": a's run ranks b then c next; 1 ranks a (0.3); b ranks nothing; space splits.
        let steps = [CTCDecoding.Step(1, 0.6, runnerUp: (2, 0.2)), CTCDecoding.Step(1, 0.5, runnerUp: (3, 0.3)),
                     CTCDecoding.Step(0, 0.9, runnerUp: (4, 0.05)), CTCDecoding.Step(4, 0.6, runnerUp: (1, 0.3)),
                     CTCDecoding.Step(6, 0.9, runnerUp: (2, 0.05)), CTCDecoding.Step(2, 0.99)]
        let line = CTCDecoding.decode(steps, characters: Self.characters)
        #expect(line.words.map(\.text) == ["a1", "b"])
        #expect(line.words[0].alternatives == [CharacterAlternative(offset: 0, character: "c", probability: 0.3),
                                                CharacterAlternative(offset: 1, character: "a", probability: 0.3)])
        #expect(line.words[1].alternatives.isEmpty)
    }

    @Test("a whitespace character of the model (U+3000) splits words as the space class does")
    func ideographicSpace() {
        let steps = [1, 0, 3, 0, 2].map { CTCDecoding.Step($0, 1) }
        #expect(CTCDecoding.decode(steps, characters: ["a", "b", "\u{3000}"]).words.map(\.text) == ["a", "b"])
    }

    @Test("the character list is read as written, one per line, a space being a character")
    func characterList() throws {
        let folder = try TestSupport.temporaryDirectory()
        let path = folder.appendingPathComponent("chars.txt").path
        try "a\n\u{3000}\n€\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try NeuralModel.characters(at: path) == ["a", "\u{3000}", "€"])
        #expect(NeuralModel.charactersPath(forModel: "/m/x_opencv.onnx") == "/m/x_opencv.txt")
        #expect(throws: NeuralEngineError.charactersUnreadable(folder.path + "/missing.txt")) {
            try NeuralModel.characters(at: folder.path + "/missing.txt")
        }
        #expect(throws: NeuralEngineError.modelNotFound(searched: ["/nowhere/models", "/nowhere/lector/models"])) {
            try NeuralModel.locate(explicit: nil, environment: ["LECTOR_DATA_DIR": "/nowhere", "XDG_DATA_HOME": "/nowhere",
                                                                "XDG_DATA_DIRS": "/nowhere"])
        }
    }

    @Test("a model is found under its name, and under the name it was installed under before",
          arguments: [(["PP-OCRv6_rec_small_latin_opencv.onnx"], "PP-OCRv6_rec_small_latin_opencv.onnx"),
                      (["PP-OCRv6_rec_small_latin.onnx", "PP-OCRv6_rec_small_latin_opencv.onnx"], "PP-OCRv6_rec_small_latin.onnx"),
                      (["ch_PP-OCRv4_det_opencv.onnx"], "ch_PP-OCRv4_det_opencv.onnx"),
                      (["ch_PP-OCRv4_det.onnx", "ch_PP-OCRv4_det_opencv.onnx"], "ch_PP-OCRv4_det.onnx")])
    func modelNames(installed: [String], found: String) throws {
        let data = try TestSupport.temporaryDirectory()
        let models = data.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        for name in installed { try Data([1]).write(to: models.appendingPathComponent(name)) }
        let environment = ["LECTOR_DATA_DIR": data.path, "XDG_DATA_HOME": "/nowhere", "XDG_DATA_DIRS": "/nowhere"]
        let located = found.hasPrefix("ch_")
            ? try DetectorModel.locate(explicit: nil, environment: environment)
            : try NeuralModel.locate(explicit: nil, variant: .latin, environment: environment)
        #expect(located == models.appendingPathComponent(found).path)
    }

    // MARK: The real network

    /// The fixture's text lines, found by ink rows (dark text on a light page), each as a
    /// rectangle grown by a quarter of its height, as the detector's unclip grows a line.
    static func fixtureLines(_ image: GrayImage) -> [PixelBox] {
        let inked = (0..<image.height).map { y in (0..<image.width).contains { image[$0, y] < 128 } }
        var bands: [Range<Int>] = []
        var start: Int?
        for y in 0...image.height {
            let ink = y < image.height && inked[y]
            if ink, start == nil { start = y }
            if !ink, let top = start { bands.append(top..<y); start = nil }
        }
        return bands.map { band in
            let columns = (0..<image.width).filter { x in band.contains { image[x, $0] < 128 } }
            let grow = band.count / 4
            return PixelBox(x: columns[0] - grow, y: band.lowerBound - grow, width: columns[columns.count - 1] + 1 - columns[0] + 2 * grow,
                            height: band.count + 2 * grow)
        }
    }

    static func quad(_ box: PixelBox) -> LineQuad {
        DetectedLine(centerX: Double(box.x) + Double(box.width) / 2, centerY: Double(box.y) + Double(box.height) / 2,
                     width: Double(box.width), height: Double(box.height), angle: 0, score: 1).quad()
    }

    @Test("the network reads the rendered fixture's lines word for word", .enabled(if: latinModel != nil && fullModel != nil, skipped),
          arguments: [NeuralModel.Variant.latin, .full])
    func readsRenderedLines(variant: NeuralModel.Variant) throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        let expected = try String(contentsOfFile: TestSupport.fixture("hello-640x480.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let engine = try NeuralLineEngine(modelPath: try NeuralModel.locate(explicit: nil, variant: variant))
        let lines = Self.fixtureLines(image)
        #expect(lines.count == expected.count, "lines found: \(lines)")
        for (box, text) in zip(lines, expected) {
            let line = try engine.read(Self.quad(box), of: image, symbols: true)
            #expect(line.words.map(\.text) == text.split(separator: " ").map(String.init), "read \(line.words.map(\.text))")
            #expect(line.confidence > 0.9)
            for word in line.words {
                #expect(word.symbols.map(\.text).joined() == word.text)
                #expect(word.confidence > 0.8)
            }
        }
    }

    @Test("a digits whitelist decodes only digits", .enabled(if: latinModel != nil, skipped))
    func digitsWhitelist() throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        let engine = try NeuralLineEngine(modelPath: try NeuralModel.locate(explicit: nil, variant: .latin))
        let digits = try engine.mask(allowing: Set("0123456789"))
        #expect(digits.characters == (0...9).map(String.init))
        let box = Self.fixtureLines(image)[2]  // "jumps over 12 lazy dogs"
        let plain = try engine.read(Self.quad(box), of: image)
        #expect(plain.words.map(\.text).contains("12"))
        let masked = try engine.read(Self.quad(box), of: image, mask: digits)
        #expect(masked.words.contains { $0.text == "12" }, "read \(masked.words.map(\.text))")
        #expect(masked.words.allSatisfy { $0.text.allSatisfy(\.isNumber) }, "read \(masked.words.map(\.text))")
        #expect(throws: NeuralEngineError.whitelistOutsideModel("ㄱ")) { try engine.mask(allowing: ["ㄱ"]) }
    }

    /// Each word's box, mapped back through the line's crop, lies inside the line and on
    /// its ink, in reading order; on a page turned a quarter (text reading bottom to top)
    /// as on an upright one.
    @Test("boxes map back inside the line's crop", .enabled(if: latinModel != nil, skipped),
          arguments: [ImageOrientation.up, .left])
    func boxesMapBack(turn: ImageOrientation) throws {
        let upright = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        // `.left`'s transform turns the page a quarter counter-clockwise: its lines read bottom to top.
        let transform = OrientationTransform(orientation: turn, sourceWidth: upright.width, sourceHeight: upright.height)
        var image = GrayImage(width: 0, height: 0)
        transform.apply(upright, into: &image)
        let expected = try TestSupport.fixtureWords("hello-640x480.png")
        let engine = try NeuralLineEngine(modelPath: try NeuralModel.locate(explicit: nil, variant: .latin))
        var read: [String] = []
        for uprightBox in Self.fixtureLines(upright) {
            let box = transform.uprightBox(ofSource: uprightBox)
            let line = try engine.read(Self.quad(box), of: image, symbols: true)
            read += line.words.map(\.text)
            let inside = box.union(line.box)
            #expect(abs(inside.x - box.x) <= 1 && abs(inside.y - box.y) <= 1 && abs(inside.maxX - box.maxX) <= 1
                        && abs(inside.maxY - box.maxY) <= 1, "line \(line.box) outside \(box)")
            var previous: Int?
            for word in line.words {
                #expect(line.box.union(word.box) == line.box)
                #expect(word.box.area > 0)
                let ink = image.cropped(to: word.box)
                #expect((ink.pixels.min() ?? 255) < 128, "word \(word.text) at \(word.box) holds no ink")
                for symbol in word.symbols { #expect(word.box.union(symbol.box) == word.box) }
                // Reading order: left to right upright, bottom to top turned.
                let position = turn == .up ? word.box.x : -word.box.maxY
                if let previous { #expect(position > previous, "\(word.text) at \(word.box) is not after the word before") }
                previous = position
            }
        }
        #expect(read == expected)
    }
}
