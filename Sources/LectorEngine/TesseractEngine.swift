import CTesseract
import LectorImaging
import LectorProtocol
import LectorSystem
import Synchronization

/// Why recognition failed.
public enum RecognitionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Tesseract could not load the language data.
    case initializationFailed(language: String, dataPath: String?)
    /// The per-frame deadline passed before Tesseract finished.
    case deadlineExceeded(milliseconds: Int)
    /// ``TesseractEngine/cancel()`` stopped it (shutdown).
    case cancelled
    /// Tesseract reported a failure.
    case failed
    /// A recognition abandoned at its deadline is still running; the frame was not started.
    case busy
    /// `--layout detector` cannot run: no model, or a build without the detector (why).
    case detectorUnavailable(String)
    /// The text-line detector failed on a frame (ONNX Runtime's or OpenCV's reason).
    case detectorFailed(String)
    /// `--engine neural` cannot run: no model, a build without it, or a language it does not read (why).
    case engineUnavailable(String)

    public var description: String {
        switch self {
        case let .initializationFailed(language, dataPath):
            "Tesseract could not load language '\(language)' from \(dataPath ?? "its default tessdata folder")"
                + " (is tesseract-ocr-\(language.split(separator: "+").first ?? "eng") installed?)"
        case let .deadlineExceeded(milliseconds): "recognition took longer than the \(milliseconds) ms deadline"
        case .cancelled: "recognition was cancelled"
        case .failed: "Tesseract failed to recognize the image"
        case .busy: "an abandoned recognition is still running"
        case let .detectorUnavailable(reason): "--layout detector cannot run: \(reason)"
        case let .detectorFailed(reason): reason
        case let .engineUnavailable(reason): "--engine neural cannot run: \(reason)"
        }
    }
}

/// The only Swift owner of Tesseract's C API: one `TessBaseAPI` handle, initialised
/// once, fed gray buffers directly (no files), read back through a result iterator.
///
/// Synchronous and not thread-safe, except ``cancel()``, which any thread may call.
public final class TesseractEngine {
    private let api: OpaquePointer
    private let monitor: OpaquePointer
    private let cancellation = CancellationFlag()
    /// The language(s) loaded, e.g. `eng` or `eng+deu`.
    public let language: String
    /// Where the last ``recognize(_:resolution:deadline:symbols:)`` spent its time.
    public private(set) var lastTimings = RecognitionTimings()

    /// Loads `language` from `dataPath` (nil: Tesseract's default or TESSDATA_PREFIX).
    /// - Parameters:
    ///   - pageSegmentation: Tesseract's page segmentation mode (3 = automatic).
    ///   - whitelist: the only characters it may report (`tessedit_char_whitelist`); nil: any.
    public init(language: String = "eng", dataPath: String? = nil, pageSegmentation: Int = 3,
                whitelist: String? = nil) throws(RecognitionError) {
        guard let api = TessBaseAPICreate() else { fatalError("TessBaseAPICreate failed: out of memory") }
        // Tesseract prints some diagnostics through tprintf; send them to /dev/null.
        _ = TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        let status: Int32 = if let dataPath { TessBaseAPIInit3(api, dataPath, language) } else { TessBaseAPIInit3(api, nil, language) }
        guard status == 0 else {
            TessBaseAPIDelete(api)
            throw .initializationFailed(language: language, dataPath: dataPath)
        }
        TessBaseAPISetPageSegMode(api, TessPageSegMode(rawValue: UInt32(clamping: pageSegmentation)))
        if let whitelist { _ = TessBaseAPISetVariable(api, "tessedit_char_whitelist", whitelist) }
        guard let monitor = TessMonitorCreate() else { fatalError("TessMonitorCreate failed: out of memory") }
        self.api = api
        self.monitor = monitor
        self.language = language
        TessMonitorSetCancelThis(monitor, Unmanaged.passUnretained(cancellation).toOpaque())
        TessMonitorSetCancelFunc(monitor) { context, _ in
            guard let context else { return false }
            return Unmanaged<CancellationFlag>.fromOpaque(context).takeUnretainedValue().isSet
        }
    }

    deinit {
        TessMonitorDelete(monitor)
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
    }

    /// Stops a recognition in progress, or the next one if none is (from any thread):
    /// a stop that lands between two frames is not lost. ``resume()`` clears it.
    public func cancel() { cancellation.set(true) }

    /// Lets recognition run again after ``cancel()`` (a camera that starts again).
    public func resume() { cancellation.set(false) }

    /// Recognizes an 8-bit gray image.
    /// - Parameters:
    ///   - resolution: pixels per inch to assume; set so Tesseract does not estimate
    ///     (and log) it for every frame.
    ///   - deadline: milliseconds after which recognition is abandoned.
    ///   - symbols: also report each character.
    ///   - settings: page segmentation and whitelist for this read (a zone's); nil: the
    ///     engine's own (as the last read left them).
    /// - Returns: the result tree, boxes in the image's pixels.
    public func recognize(_ image: GrayImage, resolution: Int = 300, deadline: Int = 2000, symbols: Bool = false,
                          settings: ReadSettings? = nil) throws(RecognitionError) -> RecognizedText {
        if cancellation.isSet { throw .cancelled }
        if let settings {
            // Both are read again by every Recognize (SetBlackAndWhitelist runs in it), so
            // zones with different profiles share one engine per language.
            TessBaseAPISetPageSegMode(api, TessPageSegMode(rawValue: UInt32(clamping: settings.pageSegmentation)))
            _ = TessBaseAPISetVariable(api, "tessedit_char_whitelist", settings.whitelist ?? "")
        }
        // A line's or a word's read keeps each character's alternatives (the choice
        // iterator's; words' alternatives, for rules): measured, the same text and CPU on the
        // 60 plate crops of ../shared/testdata/realworld at psm 7; a page's read (psm 3: the
        // same text, 5-8% more CPU on its document photos) does not.
        let alternatives = Self.singleLineModes.contains(TessBaseAPIGetPageSegMode(api).rawValue)
        _ = TessBaseAPISetVariable(api, "lstm_choice_mode", alternatives ? "2" : "0")
        let started = MonotonicInstant.now()
        let startedCPU = RecognitionTimings.threadCPUMilliseconds()
        let status: Int32 = image.pixels.withUnsafeBufferPointer { pixels in
            TessBaseAPISetImage(api, pixels.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.width))
            TessBaseAPISetSourceResolution(api, Int32(resolution))
            TessMonitorSetDeadlineMSecs(monitor, Int32(deadline))
            // Tesseract copies the pixels in SetImage's thresholding during Recognize:
            // the buffer must stay valid until Recognize returns, hence inside this closure.
            return TessBaseAPIRecognize(api, monitor)
        }
        defer { TessBaseAPIClear(api) }
        let recognized = MonotonicInstant.now()
        lastTimings = RecognitionTimings(recognizeMilliseconds: recognized.milliseconds(since: started),
                                         recognizeCPUMilliseconds: RecognitionTimings.threadCPUMilliseconds() - startedCPU,
                                         width: image.width, height: image.height)
        if cancellation.isSet { throw .cancelled }
        guard status == 0 else {
            let overran = recognized.milliseconds(since: started) >= Double(deadline)
            throw overran ? .deadlineExceeded(milliseconds: deadline) : .failed
        }
        let text = readResults(symbols: symbols, alternatives: alternatives)
        lastTimings.readMilliseconds = MonotonicInstant.now().milliseconds(since: recognized)
        lastTimings.engineCPUMilliseconds = RecognitionTimings.threadCPUMilliseconds() - startedCPU
        return text
    }

    /// Sets one of Tesseract's variables (e.g. `min_characters_to_try`).
    /// - Returns: false when Tesseract does not know `name`.
    @discardableResult
    public func setVariable(_ name: String, _ value: String) -> Bool {
        TessBaseAPISetVariable(api, name, value) != 0
    }

    /// The languages whose traineddata are in the folder this engine loaded from
    /// (e.g. `["chi_sim", "eng", "osd"]`).
    public var availableLanguages: [String] {
        guard let vector = TessBaseAPIGetAvailableLanguagesAsVector(api) else { return [] }
        defer { TessDeleteTextArray(vector) }
        var languages: [String] = []
        var index = 0
        while let name = vector[index] {
            languages.append(String(cString: name))
            index += 1
        }
        return languages.sorted()
    }

    /// Runs Tesseract's orientation and script detection (OSD) on an 8-bit gray image:
    /// the quarter turn that makes its text upright. The engine must have been made with
    /// language `osd` (Debian's `tesseract-ocr-osd`; the legacy engine reads it).
    /// - Parameter resolution: pixels per inch to assume (see ``recognize(_:resolution:deadline:symbols:)``).
    /// - Returns: nil when Tesseract found too little text to say (it needs some 50
    ///   characters' worth of blobs) or failed.
    /// - Throws: ``RecognitionError/cancelled`` after ``cancel()``.
    public func detectOrientation(_ image: GrayImage, resolution: Int = 300) throws(RecognitionError) -> OrientationEstimate? {
        if cancellation.isSet { throw .cancelled }
        var degrees: Int32 = 0
        var confidence: Float = 0
        // Points into the engine's own character set: not to be freed (Tesseract 5).
        var script: UnsafePointer<CChar>?
        var scriptConfidence: Float = 0
        let found: Int32 = image.pixels.withUnsafeBufferPointer { pixels in
            TessBaseAPISetImage(api, pixels.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.width))
            TessBaseAPISetSourceResolution(api, Int32(resolution))
            return TessBaseAPIDetectOrientationScript(api, &degrees, &confidence, &script, &scriptConfidence)
        }
        defer { TessBaseAPIClear(api) }
        guard found != 0, [0, 90, 180, 270].contains(Int(degrees)) else { return nil }
        // OSD reports how far the image is turned clockwise from upright; undoing it
        // turns it back the other way.
        return OrientationEstimate(rotation: (360 - Int(degrees)) % 360, confidence: Double(confidence),
                                   script: script.map { String(cString: $0) }, scriptConfidence: Double(scriptConfidence))
    }

    /// Page segmentation modes of one line or word (7, 8, 13), whose reads keep alternatives.
    private static let singleLineModes: Set<UInt32> = [7, 8, 13]

    /// Walks Tesseract's result iterator into the tree, dropping whitespace-only words
    /// (automatic page segmentation returns some, with page-wide boxes); by symbol with
    /// `symbols` or `alternatives`, where each word keeps the characters Tesseract's choice
    /// iterator ranked next (``TextWord/alternatives``).
    private func readResults(symbols: Bool, alternatives: Bool) -> RecognizedText {
        guard let iterator = TessBaseAPIGetIterator(api) else { return RecognizedText() }
        defer { TessResultIteratorDelete(iterator) }
        let page = TessResultIteratorGetPageIterator(iterator)
        let step = symbols || alternatives ? RIL_SYMBOL : RIL_WORD

        var builder = TreeBuilder()
        var offset = 0
        repeat {
            if TessPageIteratorIsAtBeginningOf(page, RIL_BLOCK) != 0 { builder.startBlock() }
            if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 { builder.startLine() }
            if TessPageIteratorIsAtBeginningOf(page, RIL_WORD) != 0,
               let text = text(iterator, RIL_WORD), let box = box(page, RIL_WORD) {
                let language = TessResultIteratorWordRecognitionLanguage(iterator).map { String(cString: $0) }
                builder.addWord(text: text, box: box, confidence: confidence(iterator, RIL_WORD), language: language)
                offset = 0
            }
            guard step == RIL_SYMBOL, let text = text(iterator, RIL_SYMBOL) else { continue }
            if symbols, let box = box(page, RIL_SYMBOL) {
                builder.addSymbol(TextSymbol(text: text, box: box, confidence: confidence(iterator, RIL_SYMBOL)))
            }
            if alternatives, text.count == 1 {
                builder.addAlternatives(choices(iterator, besides: text).map { CharacterAlternative(offset: offset, character: $0.0, probability: $0.1) })
            }
            offset += text.count
        } while TessResultIteratorNext(iterator, step) != 0
        return builder.finish()
    }

    /// The characters Tesseract's choice iterator ranks at the iterator's symbol besides
    /// `text`, with their confidence (0…1; at least a hundredth: clean text has none), the
    /// likeliest first, at most 3.
    private func choices(_ iterator: OpaquePointer, besides text: String) -> [(Character, Double)] {
        // At a symbol (its text was read): the iterator is at a word (Tesseract asserts that).
        guard let choices = TessResultIteratorGetChoiceIterator(iterator) else { return [] }
        defer { TessChoiceIteratorDelete(choices) }
        var found: [(Character, Double)] = []
        repeat {
            guard let raw = TessChoiceIteratorGetUTF8Text(choices) else { continue }
            let choice = String(cString: raw)
            let confidence = Double(max(0, min(100, TessChoiceIteratorConfidence(choices)))) / 100
            if choice.count == 1, choice != text, confidence >= 0.01, !found.contains(where: { $0.0 == Character(choice) }) {
                found.append((Character(choice), confidence))
            }
        } while found.count < 3 && TessChoiceIteratorNext(choices) != 0
        return found.sorted { $0.1 > $1.1 }
    }

    private func text(_ iterator: OpaquePointer, _ level: TessPageIteratorLevel) -> String? {
        guard let raw = TessResultIteratorGetUTF8Text(iterator, level) else { return nil }
        defer { TessDeleteText(raw) }
        return String(cString: raw)
    }

    private func box(_ page: OpaquePointer?, _ level: TessPageIteratorLevel) -> PixelBox? {
        var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
        guard TessPageIteratorBoundingBox(page, level, &left, &top, &right, &bottom) != 0 else { return nil }
        return PixelBox(x: Int(left), y: Int(top), width: Int(right - left), height: Int(bottom - top))
    }

    private func confidence(_ iterator: OpaquePointer, _ level: TessPageIteratorLevel) -> Double {
        Double(max(0, min(100, TessResultIteratorConfidence(iterator, level)))) / 100
    }
}

/// Where one recognition spent its time, in milliseconds.
public struct RecognitionTimings: Equatable, Sendable {
    /// Tesseract's own work: SetImage and Recognize.
    public var recognizeMilliseconds: Double = 0
    /// Walking Tesseract's result iterator and building the ``RecognizedText`` tree.
    public var readMilliseconds: Double = 0
    /// CPU time of the recognizing thread in SetImage and Recognize: unlike wall time,
    /// it does not grow while other processes have the CPU.
    public var recognizeCPUMilliseconds: Double = 0
    /// CPU time of the recognizing thread for the whole frame: SetImage, Recognize and
    /// reading the results. Recognition runs on an engine thread of its own, so the
    /// caller's thread CPU time does not include it.
    public var engineCPUMilliseconds: Double = 0
    /// The size of the image Tesseract read (after any downscaling or cropping).
    public var width = 0
    public var height = 0

    public init(recognizeMilliseconds: Double = 0, readMilliseconds: Double = 0, recognizeCPUMilliseconds: Double = 0,
                width: Int = 0, height: Int = 0) {
        self.recognizeMilliseconds = recognizeMilliseconds
        self.readMilliseconds = readMilliseconds
        self.recognizeCPUMilliseconds = recognizeCPUMilliseconds
        self.width = width
        self.height = height
    }

    /// CPU time the calling thread has used, in milliseconds (CLOCK_THREAD_CPUTIME_ID).
    public static func threadCPUMilliseconds() -> Double {
        Double(Syscalls.threadCPUNanoseconds) / 1e6
    }
}

/// A flag Tesseract's cancel callback reads from the recognizing thread while another
/// thread sets it.
private final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set(_ newValue: Bool) { value.store(newValue, ordering: .relaxed) }
}
