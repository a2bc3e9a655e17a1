import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem

/// `--lang auto` for one ``TextRecognizer``: per scene, Tesseract's OSD names the script
/// of the upright frame and ``ScriptLanguages`` picks the installed traineddata that
/// reads it; a recognizer per language is made the first time it is needed and kept.
///
/// The script is found again when the scene changes (a new stack generation, or a new
/// orientation), and every ``recheckFrames`` frames without a stack. A scene OSD cannot
/// judge keeps the language in force. One per recognizer, used on its thread; only
/// ``cancel()`` and ``resume()`` may be called from any thread.
final class AutoLanguage {
    /// Frames read without a stack before the script is checked again.
    static let recheckFrames = 10
    /// OSD's default (50) skips a sign of a few large characters ("too few characters"):
    /// every Chinese, Japanese, Korean and Hindi frame of scripts/make-script-frames.py.
    static let minimumCharacters = 5

    private let detector: TesseractEngine
    /// The traineddata installed where the recognizer loads from.
    let installed: Set<String>
    private let options: RecognizerOptions
    /// Recognizers of the languages other than Latin's (which the owner reads itself);
    /// `lock` guards them and `cancelled` (``cancel()`` comes from other threads).
    private var readers: [String: TextRecognizer] = [:]
    private var cancelled = false
    private let lock = NSLock()
    private var scene: (generation: Int, orientation: Int)?
    private var framesSinceCheck = 0
    /// The language in force.
    private(set) var language = ScriptLanguages.latin
    /// Languages a scene needed and that are not installed, not yet said.
    private var unsaid: [String] = []
    private var said: Set<String> = []

    /// - Parameter options: the camera's options, `language` already resolved to Latin's.
    init(options: RecognizerOptions) throws(RecognitionError) {
        detector = try TesseractEngine(language: "osd", dataPath: options.dataPath, pageSegmentation: 0)
        detector.setVariable("min_characters_to_try", "\(Self.minimumCharacters)")
        installed = Set(detector.availableLanguages)
        self.options = options
    }

    /// The recognizer that reads `image` (nil: the owner, in Latin's language), after
    /// checking the script when the scene is new.
    func reader(for image: GrayImage, scene hint: SceneHint?) throws(RecognitionError) -> TextRecognizer? {
        if isNewScene(hint) {
            framesSinceCheck = 0
            let estimate = try detector.detectOrientation(image, resolution: options.resolution)
            if let script = estimate?.script {
                let choice = ScriptLanguages.choose(script: script, installed: installed)
                language = choice.language
                for missing in choice.missing where said.insert(missing).inserted { unsaid.append(missing) }
            }
        }
        framesSinceCheck += 1
        guard language != ScriptLanguages.latin else { return nil }
        if let reader = lock.withLock({ readers[language] }) { return reader }
        var options = options
        options.language = language
        let reader = try TextRecognizer(options: options)
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
