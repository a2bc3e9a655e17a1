import Foundation
@testable import LectorDetector
@testable import LectorEngine
@testable import LectorImaging
@testable import LectorProtocol
@testable import LectorRecognition
import LectorTestSupport
import Testing

/// `--engine`: which line engine reads the detector's lines, how `--lang` picks the
/// neural model, and the engines reading real fixtures (when the models are installed).
@Suite("Line engines", .serialized)
struct LineEngineTests {
    static let installed = NeuralLineEngine.isBuilt && (try? NeuralModel.locate(explicit: nil, variant: .latin)) != nil
        && (try? DetectorModel.locate(explicit: nil)) != nil
    static let skipped: Comment = "needs ONNX Runtime at build time, the detector's and the neural recognizer's models"

    @Test("--lang picks the Latin model, the full one with Chinese or Japanese, none for other scripts",
          arguments: [("eng", NeuralModel.Variant?.some(.latin)), ("eng+deu", .latin), ("fra+osd", .latin),
                      ("chi_sim", .full), ("jpn", .full), ("eng+chi_tra", .full), ("kor", nil), ("hin", nil),
                      ("eng+kor", nil), ("vie", nil), ("", nil)])
    func variantByLanguage(language: String, variant: NeuralModel.Variant?) {
        #expect(NeuralModel.variant(forLanguage: language) == variant)
    }

    @Test("auto sends short lines to the neural recognizer",
          arguments: [(200.0, 60.0, true), (239.0, 60.0, true), (240.0, 60.0, false), (900.0, 40.0, false)])
    func shortLines(length: Double, thickness: Double, neuralFirst: Bool) {
        let quad = LineQuad(topLeft: ImagePoint(x: 0, y: 0), topRight: ImagePoint(x: length, y: 0),
                            bottomRight: ImagePoint(x: length, y: thickness), bottomLeft: ImagePoint(x: 0, y: thickness))
        #expect(LinePolicy.neuralFirst(quad) == neuralFirst)
    }

    /// `auto` reads again with the neural recognizer a line Tesseract read unsure, or one
    /// with a number run into its unit read unsure (tests/live's "500g" for "500 g").
    @Test("auto reads again lines read unsure, and numbers run into letters",
          arguments: [([("Net", 0.96), ("weight", 0.96), ("500g", 0.84)], 0.92, true),
                      ([("Net", 0.96), ("weight", 0.96), ("500", 0.86), ("g", 0.86)], 0.91, false),
                      ([("Net", 0.96), ("weight", 0.96), ("500g", 0.95)], 0.96, false),
                      ([("Keep", 0.97), ("refrigerated", 0.83)], 0.90, false),
                      ([("Keep", 0.89), ("refrigerated", 0.88)], 0.885, true)])
    func rereads(words: [(String, Double)], confidence: Double, reread: Bool) {
        let read = words.map { TextWord(text: $0.0, box: PixelBox(x: 0, y: 0, width: 10, height: 10), confidence: $0.1) }
        #expect(LinePolicy.rereads(read, confidence: confidence) == reread)
    }

    @Test("neural without its model is an error; auto reads with Tesseract and says why; tesseract says nothing")
    func resolveWithoutModel() throws {
        #expect(throws: RecognitionError.self) { try ResolvedEngine.resolve(.neural, language: "eng", model: "/nonexistent/rec.onnx") }
        let auto = try ResolvedEngine.resolve(.auto, language: "eng", model: "/nonexistent/rec.onnx")
        #expect(auto.neuralModel == nil)
        #expect(auto.note?.contains("/nonexistent/rec.onnx") == true || !NeuralLineEngine.isBuilt, "\(auto.note ?? "")")
        #expect(try ResolvedEngine.resolve(.tesseract, language: "eng", model: "/nonexistent/rec.onnx") == .tesseract)
        let korean = try ResolvedEngine.resolve(.auto, language: "kor", model: nil)
        #expect(korean.neuralModel == nil && korean.note != nil)
        #expect(throws: RecognitionError.self) { try ResolvedEngine.resolve(.neural, language: "hin", model: nil) }
    }

    @Test("each engine reads the fixture's lines, and every line says which engine read it", .enabled(if: installed, skipped),
          arguments: [LineEngine.auto, .tesseract, .neural])
    func readsFixture(engine: LineEngine) throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        var options = RecognizerOptions.untimed
        options.layout = .detector
        options.engine = engine
        let recognizer = try TextRecognizer(options: options)
        #expect(recognizer.readsNeural == (engine != .tesseract))
        let result = try recognizer.recognize(image)
        let expected = try TestSupport.fixtureWords("hello-640x480.png")
        #expect(TestSupport.recall(expected: expected, actual: result.words.map(\.text)) >= 0.9, "\(result.text)")
        let engines = Set(result.blocks.flatMap { $0.lines.compactMap(\.engine) })
        #expect(result.blocks.allSatisfy { $0.lines.allSatisfy { $0.engine != nil } })
        switch engine {
        case .tesseract: #expect(engines == ["tesseract"])
        case .neural, .segments: #expect(engines == ["neural"])
        case .auto: #expect(!engines.isEmpty && engines.isSubset(of: ["tesseract", "neural"]))
        }
    }

    @Test("a zone read by the neural recognizer with a digits whitelist decodes only digits", .enabled(if: installed, skipped))
    func neuralZone() throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        let box = NeuralEngineTests.fixtureLines(image)[2]  // "jumps over 12 lazy dogs"
        var profile = ZoneProfile()
        profile.whitelist = ZoneProfile.whitelist("digits")
        profile.engine = .neural
        var options = RecognizerOptions.untimed
        options.zones = [ZoneSpec(name: "number", rect: box, profile: profile)]
        let result = try TextRecognizer(options: options).recognize(image)
        #expect(result.words.contains { $0.text == "12" }, "\(result.text)")
        #expect(result.words.allSatisfy { $0.text.allSatisfy(\.isNumber) }, "\(result.text)")
        #expect(result.blocks.allSatisfy { $0.zone == "number" && $0.lines.allSatisfy { $0.engine == "neural" } })
        #expect(result.words.allSatisfy { box.union($0.box) == box }, "words inside the zone")
    }
}
