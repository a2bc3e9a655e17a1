import Foundation
import LectorDetector
import LectorEngine
import LectorImaging
import LectorProtocol
import LectorSystem

/// `--lang auto` for one ``TextRecognizer``: per scene, Tesseract's OSD names the script
/// of the upright frame and ``ScriptLanguages`` lists the installed traineddata to try;
/// the scene's first frame is read in the first, and when that read does not fit its
/// language (``LanguageEvidence``: few confident words, letters of another script, kana
/// or Japanese-only forms read as Chinese) in the next ones too, until one fits: on the
/// same frame while under ``sameFrameShare`` of its deadline has passed, else on the
/// scene's next frames (a slow machine publishes the first language's read as soon as
/// before). The best read is published and its language kept for the scene. A
/// recognizer per language is made the first time it is needed and kept.
///
/// The script is found again when the scene changes (a new stack generation, or a new
/// orientation), and every ``recheckFrames`` frames without a stack. A scene OSD cannot
/// judge starts from Latin's language. One per recognizer, used on its thread; only
/// ``cancel()`` and ``resume()`` may be called from any thread.
final class AutoLanguage {
    /// Frames read without a stack before the script is checked again.
    static let recheckFrames = 10
    /// OSD's default (50) skips a sign of a few large characters ("too few characters"):
    /// every Chinese, Japanese, Korean and Hindi frame of scripts/make-script-frames.py.
    static let minimumCharacters = 5
    /// A new scene's check reads another language on the same frame only while less than
    /// this share of the frame's deadline has passed; past it the next frames go on with
    /// it. At a third of a core, with half of the deadline, a car photo whose first read
    /// did not fit published its plate 0.8 s later than with the first read alone
    /// (tests/slowcpu, platefull/eu_eu6).
    static let sameFrameShare = 0.25

    private let detector: TesseractEngine
    /// The traineddata installed where the recognizer loads from.
    let installed: Set<String>
    private let options: RecognizerOptions
    /// The owner's text-line detectors, shared with the other languages' recognizers.
    private let detectors: DetectorPool?
    /// Recognizers of the languages other than Latin's (which the owner reads itself);
    /// `lock` guards them and `cancelled` (``cancel()`` comes from other threads).
    private var readers: [String: TextRecognizer] = [:]
    private var cancelled = false
    private let lock = NSLock()
    private var scene: (generation: Int, orientation: Int)?
    private var framesSinceCheck = 0
    /// The language in force.
    private(set) var language = ScriptLanguages.latin
    /// The last script check: what OSD named (nil: nothing), its confidence, and the
    /// languages read, not taken yet (``takeCheck()``).
    private var lastCheck: (script: String?, confidence: Double, tried: [String])?
    /// Languages a scene needed and that are not installed, not yet said.
    private var unsaid: [String] = []
    private var said: Set<String> = []

    /// - Parameters:
    ///   - options: the camera's options, `language` already resolved to Latin's.
    ///   - detectors: the owner's text-line detectors (nil: Tesseract's layout).
    init(options: RecognizerOptions, detectors: DetectorPool?) throws(RecognitionError) {
        detector = try TesseractEngine(language: "osd", dataPath: options.dataPath, pageSegmentation: 0)
        detector.setVariable("min_characters_to_try", "\(Self.minimumCharacters)")
        installed = Set(detector.availableLanguages)
        self.options = options
        self.detectors = detectors
    }

    /// One language's read of a frame, and what it says about the language.
    private struct LanguageRead {
        var language: String
        var text: RecognizedText
        var reader: TextRecognizer?
        var evidence: LanguageEvidence
    }

    /// A scene's script check: the languages still to try, and the best read so far.
    private struct Check {
        var script: String?
        var confidence: Double
        var candidates: [String]
        var tried: [String] = []
        var best: LanguageRead?
    }

    /// The check of the scene in force, while it has languages left to try: the frame's
    /// deadline ran out first (a slow machine), so the next frames go on with it.
    private var pending: Check?

    /// Reads `image` in its scene's language: on a new scene, in each of the script's
    /// candidates until one fits, as long as the frame's deadline allows (see the type's
    /// comment); the next frames of the scene go on with the candidates left. `own`
    /// reads in Latin's language (the owner's), and says how many lines its detector
    /// found (nil: no detector).
    /// - Returns: the text, and the recognizer that read it (nil: `own`).
    func recognize(_ image: GrayImage, scene hint: SceneHint?,
                   own: () throws(RecognitionError) -> (text: RecognizedText, lines: Int?))
        throws(RecognitionError) -> (text: RecognizedText, reader: TextRecognizer?) {
        let started = MonotonicInstant.now()
        if isNewScene(hint) {
            framesSinceCheck = 1
            let estimate = try detector.detectOrientation(image, resolution: options.resolution)
            let choice = ScriptLanguages.choose(script: estimate?.script, installed: installed)
            for missing in choice.missing where said.insert(missing).inserted { unsaid.append(missing) }
            pending = Check(script: estimate?.script, confidence: estimate?.scriptConfidence ?? 0,
                            candidates: ScriptLanguages.candidates(script: estimate?.script, installed: installed))
        } else {
            framesSinceCheck += 1
        }
        guard var check = pending else {
            let reader = try self.reader(language)
            return (try read(image, hint, with: reader, own: own).text, reader)
        }
        pending = nil
        while let candidate = check.candidates.first {
            // Past the same frame's share of the deadline: the next frame goes on.
            if check.best != nil, MonotonicInstant.now().milliseconds(since: started) >= Double(options.deadline) * Self.sameFrameShare {
                pending = check
                break
            }
            let reader = try self.reader(candidate)
            let text: RecognizedText, noLines: Bool
            do {
                (text, noLines) = try read(image, hint, with: reader, own: own)
            } catch .deadlineExceeded where check.best != nil {
                break  // a detection past the deadline that found no line: the best read stands
            }
            check.candidates.removeFirst()
            check.tried.append(candidate)
            let evidence = LanguageEvidence(text, language: candidate)
            // A read of an earlier frame of the scene stands for the scene as well as this one.
            if check.best.map({ evidence.isBetter(in: candidate, than: $0.evidence, in: $0.language) }) ?? true {
                check.best = LanguageRead(language: candidate, text: text, reader: reader, evidence: evidence)
            }
            // Read in Chinese, Han that is Japanese (kana, Japanese-only forms) fits
            // nothing yet: Japanese is read next. Nothing detected: no other language
            // finds more.
            if evidence.fits(candidate) || noLines {
                pending = nil
                break
            }
        }
        lastCheck = (check.script, check.confidence, check.tried)
        guard let best = check.best else { return (RecognizedText(), nil) }
        language = best.language
        return (best.text, best.reader)
    }

    /// `image` read by `reader` (nil: `own`), and whether its detector found no line.
    private func read(_ image: GrayImage, _ hint: SceneHint?, with reader: TextRecognizer?,
                      own: () throws(RecognitionError) -> (text: RecognizedText, lines: Int?))
        throws(RecognitionError) -> (text: RecognizedText, noLines: Bool) {
        guard let reader else {
            let read = try own()
            return (read.text, read.lines == 0)
        }
        let text = try reader.recognize(image, scene: hint)
        return (text, reader.lastDetectorRead?.lines == 0)
    }

    /// The recognizer that reads `language` (nil: Latin's, the owner).
    private func reader(_ language: String) throws(RecognitionError) -> TextRecognizer? {
        guard language != ScriptLanguages.latin else { return nil }
        if let reader = lock.withLock({ readers[language] }) { return reader }
        var options = options
        options.language = language
        let reader = try TextRecognizer(options: options, sharing: detectors)
        lock.withLock {
            readers[language] = reader
            if cancelled { reader.cancel() }
        }
        return reader
    }

    /// Stops the other languages' recognitions (see ``TextRecognizer/cancel()``).
    func cancel() {
        lock.withLock {
            cancelled = true
            for reader in readers.values { reader.cancel() }
        }
    }

    /// Lets them run again.
    func resume() {
        lock.withLock {
            cancelled = false
            for reader in readers.values { reader.resume() }
        }
    }

    /// The script check of the last read, once (nil: none since the last call).
    func takeCheck() -> (script: String?, confidence: Double, tried: [String])? {
        defer { lastCheck = nil }
        return lastCheck
    }

    /// Missing languages not said yet (each is returned once).
    func takeMissing() -> [String] {
        defer { unsaid.removeAll() }
        return unsaid
    }

    private func isNewScene(_ hint: SceneHint?) -> Bool {
        guard let hint else {
            return framesSinceCheck == 0 || framesSinceCheck >= Self.recheckFrames
        }
        defer { scene = (hint.generation, hint.orientation) }
        guard let scene else { return true }
        return scene.generation != hint.generation || scene.orientation != hint.orientation
    }
}
