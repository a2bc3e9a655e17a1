import Foundation
@testable import LectorEngine
@testable import LectorImaging
@testable import LectorPipeline
@testable import LectorProtocol
@testable import LectorRecognition
import LectorTestSupport
import Testing

/// Real Tesseract on generated frames with known text.
@Suite("Recognizer", .serialized)
struct RecognizerTests {
    static func words(_ text: RecognizedText) -> [String] { text.words.map(\.text) }

    @Test("reads known text from fixture frames", arguments: ["hello-640x480.png", "noisy-1280x720.png", "small-1280x720.png"])
    func readsFixtures(name: String) throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture(name))
        var options = RecognizerOptions.untimed
        options.downscale = .none
        let result = try TextRecognizer(options: options).recognize(image)
        let recall = TestSupport.recall(expected: try TestSupport.fixtureWords(name), actual: Self.words(result))
        #expect(recall >= 0.9, "recall \(recall): \(result.text)")
        for word in result.words {
            #expect(word.confidence > 0 && word.confidence <= 1)
            #expect(!word.text.trimmingCharacters(in: .whitespaces).isEmpty, "no whitespace-only words")
        }
    }

    /// The engine reports where its time went, for FRAME reports and lector-bench: the
    /// size it read (half with downscale 2), wall and CPU time of recognition, the walk.
    @Test("reports timings and the size Tesseract read", arguments: [Downscale.none, .half])
    func timings(downscale: Downscale) throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        var options = RecognizerOptions.untimed
        options.downscale = downscale
        options.layout = .tesseract  // downscaling is Tesseract's layout's (the detector's reads are per line)
        let recognizer = try TextRecognizer(options: options)
        _ = try recognizer.recognize(image)
        let timings = recognizer.lastTimings
        let factor = downscale == .half ? 2 : 1
        #expect(timings.width == image.width / factor && timings.height == image.height / factor, "read \(timings.width)x\(timings.height)")
        #expect(timings.recognizeMilliseconds > 0 && timings.recognizeCPUMilliseconds > 0)
        #expect(timings.readMilliseconds > 0 && timings.readMilliseconds < timings.recognizeMilliseconds)
    }

    /// The fixture captured as if the camera were turned: the recognizer, given the
    /// matching orientation, reads the same words, and every word's box holds ink
    /// both in the upright image and, through its corners, in the captured frame.
    @Test("reads rotated and mirrored captures, boxes where the text is", arguments: ImageOrientation.allCases)
    func orientations(orientation: ImageOrientation) throws {
        let upright = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        var captured = GrayImage(width: 0, height: 0)
        OrientationTransform(orientation: orientation.inverse, sourceWidth: upright.width, sourceHeight: upright.height)
            .apply(upright, into: &captured)

        let transform = OrientationTransform(orientation: orientation, sourceWidth: captured.width, sourceHeight: captured.height)
        var turned = GrayImage(width: 0, height: 0)
        transform.apply(captured, into: &turned)
        #expect(turned == upright)

        let result = try TextRecognizer(options: RecognizerOptions.untimed).recognize(turned)
        let recall = TestSupport.recall(expected: try TestSupport.fixtureWords("hello-640x480.png"), actual: Self.words(result))
        #expect(recall >= 0.9, "\(orientation): \(result.text)")

        for word in result.words {
            let box = word.box
            #expect(box.x >= 0 && box.y >= 0 && box.maxX <= turned.width && box.maxY <= turned.height)
            // Ink (dark pixels on the light page) inside the upright box…
            let crop = turned.cropped(to: box)
            #expect(crop.pixels.contains { $0 < 100 }, "no ink under '\(word.text)' at \(box)")
            // …and the same pixels inside the captured frame's corners.
            let corners = transform.sourceCorners(of: box)
            let xs = corners.map(\.x), ys = corners.map(\.y)
            let sourceBox = PixelBox(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
            var cropTurned = GrayImage(width: 0, height: 0)
            OrientationTransform(orientation: orientation, sourceWidth: sourceBox.width, sourceHeight: sourceBox.height)
                .apply(captured.cropped(to: sourceBox), into: &cropTurned)
            #expect(cropTurned == crop, "corners of '\(word.text)' do not frame the same pixels")
        }
        // The first line is drawn at y = 15% of the height (scripts/make-fixtures.py).
        let firstLine = try #require(result.blocks.first?.lines.first)
        #expect(abs(firstLine.box.y - 72) <= 12, "first line at \(firstLine.box)")
    }

    @Test("downscale: halving reads large text; auto keeps small text at full size")
    func downscale() throws {
        var options = RecognizerOptions.untimed
        options.layout = .tesseract  // downscaling applies to Tesseract's layout only (the detector shrinks its own input)
        options.downscale = .half
        let large = try ImageFile.readGray(path: TestSupport.fixture("noisy-1280x720.png"))
        let halved = try TextRecognizer(options: options).recognize(large)
        #expect(TestSupport.recall(expected: try TestSupport.fixtureWords("noisy-1280x720.png"), actual: Self.words(halved)) >= 0.9)
        // Boxes come back in full-resolution pixels.
        var fullOptions = RecognizerOptions.untimed
        fullOptions.layout = .tesseract
        let full = try TextRecognizer(options: fullOptions).recognize(large)
        let a = try #require(halved.words.first?.box), b = try #require(full.words.first?.box)
        #expect(abs(a.x - b.x) <= 6 && abs(a.y - b.y) <= 6 && abs(a.width - b.width) <= 10)

        options.downscale = .auto
        let recognizer = try TextRecognizer(options: options)
        let small = try ImageFile.readGray(path: TestSupport.fixture("small-1280x720.png"))
        _ = try recognizer.recognize(small)
        #expect(!recognizer.willHalve, "small text must stay at full resolution")
        let again = try recognizer.recognize(small)
        #expect(TestSupport.recall(expected: try TestSupport.fixtureWords("small-1280x720.png"), actual: Self.words(again)) >= 0.9)
        let big = try ImageFile.readGray(path: TestSupport.fixture("noisy-1280x720.png"))
        _ = try recognizer.recognize(big)
        #expect(recognizer.willHalve, "tall text is halved")
    }

    @Test("region of interest: only text inside it, boxes in full-image pixels")
    func regionOfInterest() throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        var options = RecognizerOptions.untimed
        options.downscale = .none
        options.regionOfInterest = PixelBox(x: 0, y: 60, width: 640, height: 60)  // the first line only
        let result = try TextRecognizer(options: options).recognize(image)
        #expect(result.text == "HELLO LECTOR")
        let box = try #require(result.words.first?.box)
        #expect(box.y >= 60 && box.maxY <= 120)
    }

    @Test("symbols when asked for")
    func symbols() throws {
        var options = RecognizerOptions.untimed
        options.symbols = true
        options.regionOfInterest = PixelBox(x: 0, y: 60, width: 640, height: 60)
        let result = try TextRecognizer(options: options).recognize(try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png")))
        let word = try #require(result.words.first)
        #expect(word.symbols.map(\.text).joined() == word.text)
    }

    @Test("words read as lines keep the characters Tesseract's choice iterator ranked next, other than their own; a page's none")
    func alternatives() throws {
        // At a third of its size the fixture still reads, with doubts (clean text has none
        // above a hundredth).
        let full = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        let small = GrayImage(width: full.width / 3, height: full.height / 3, pixels: (0..<(full.width / 3 * (full.height / 3))).map { index in
            let x = index % (full.width / 3) * 3, y = index / (full.width / 3) * 3
            return UInt8((0..<9).map { Int(full[x + $0 % 3, y + $0 / 3]) }.reduce(0, +) / 9)
        })
        var options = RecognizerOptions.untimed
        options.downscale = .none
        options.layout = .tesseract
        #expect(try TextRecognizer(options: options).recognize(small).words.allSatisfy(\.alternatives.isEmpty), "psm 3: none")
        options.layout = .detector
        let result = try TextRecognizer(options: options).recognize(small)
        let words = result.words
        #expect(words.contains { $0.alternatives.contains { $0.probability >= 0.01 } }, "some alternative in \(result.text)")
        for word in words {
            let characters = Array(word.text)
            for alternative in word.alternatives {
                #expect(alternative.offset < characters.count && characters[alternative.offset] != alternative.character,
                        "\(alternative) in \(word.text)")
                #expect(alternative.probability > 0 && alternative.probability <= 1)
            }
        }
    }

    @Test("a blank frame gives no text, not an error")
    func blank() throws {
        let result = try TextRecognizer(options: RecognizerOptions.untimed).recognize(GrayImage(width: 320, height: 240, pixels: .init(repeating: 200, count: 320 * 240)))
        #expect(result.blocks.isEmpty)
    }

    @Test("an unknown language is a clear error")
    func unknownLanguage() {
        var options = RecognizerOptions.untimed
        options.language = "xxx"
        #expect(throws: RecognitionError.initializationFailed(language: "xxx", dataPath: nil)) { try TextRecognizer(options: options) }
    }

    /// Tesseract's layout reads a frame whole or not at all (the detector layout publishes
    /// what it read instead: DetectorTests' partial reads).
    @Test("a tiny deadline abandons Tesseract's layout with a typed error")
    func deadline() throws {
        var options = RecognizerOptions.untimed
        options.layout = .tesseract
        options.deadlineMilliseconds = 1
        options.downscale = .none
        let image = try ImageFile.readGray(path: TestSupport.fixture("noisy-1280x720.png"))
        #expect(throws: RecognitionError.deadlineExceeded(milliseconds: 1)) { try TextRecognizer(options: options).recognize(image) }
    }

    @Test("TEXT message shape: class first, no nulls, corners per element, filters")
    func messageShape() throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        let text = try TextRecognizer(options: RecognizerOptions.untimed).recognize(image)
        let transform = OrientationTransform(orientation: .right, sourceWidth: 480, sourceHeight: 640)
        let report = TextReport(device: "test", sequence: 7, captureTime: .now(), unixTime: 1_700_000_000.5, transform: transform,
                                text: text, recognizeMilliseconds: 12.5)
        let message = report.message().json
        let json = JSONWriter.string(message)
        #expect(json.hasPrefix(#"{"class":"TEXT","device":"test","seq":7,"time":"2023-11-14T22:13:20.500Z","orientation":{"exif":6,"name":"right"},"width":640,"height":480"#))
        #expect(!json.contains("null"))
        let block = try #require(message["blocks"]?.arrayValue?.first)
        #expect(block["corners"]?.arrayValue?.count == 4)
        let word = try #require(block["lines"]?.arrayValue?.first?["words"]?.arrayValue?.first)
        #expect(word["text"]?.stringValue == "HELLO")
        #expect(word["box"]?["width"]?.intValue ?? 0 > 0)
        // Levels and confidence filter.
        #expect(report.message(level: .block).json["blocks"]?.arrayValue?.first?["lines"] == nil)
        #expect(report.message(level: .line).json["blocks"]?.arrayValue?.first?["lines"]?.arrayValue?.first?["words"] == nil)
        #expect(report.message(minimumConfidence: 1.01).json["blocks"]?.arrayValue?.isEmpty == true)
        #expect(try JSONParser.parse(json) == message)
    }
}
