import Foundation

/// The neural line recognizer's model files and where lectord finds them: the same
/// folders as the detector's model (``DetectorModel/searchFolders(environment:)``), where
/// scripts/fetch-engine-model installs two variants, each an ONNX network with its
/// character list beside it (same name, `.txt`: one character per line; class i of the
/// network is line i, class 0 is CTC's blank, the last class a space).
public enum NeuralModel {
    /// Which of the installed networks.
    public enum Variant: String, CaseIterable, Sendable {
        /// All 18,710 classes: Latin script (about 50 languages), Chinese, Japanese kana.
        case full
        /// Only the classes of Latin script (689): the same Latin reads, cheaper (the
        /// classifier is most of the network's last layer).
        case latin

        /// The network's file name (scripts/fetch-engine-model installs it under this name).
        public var fileName: String {
            switch self {
            case .full: "PP-OCRv6_rec_small.onnx"
            case .latin: "PP-OCRv6_rec_small_latin.onnx"
            }
        }

        /// The name it was installed under before (that of the OpenCV-read model before
        /// it): still found, after ``fileName``, in each folder.
        public var legacyFileName: String {
            switch self {
            case .full: "PP-OCRv6_rec_small_opencv.onnx"
            case .latin: "PP-OCRv6_rec_small_latin_opencv.onnx"
            }
        }
    }

    /// Tesseract's languages written in Latin script that the Latin model reads (its
    /// 687 characters hold their letters; Vietnamese's stacked accents it does not).
    public static let latinLanguages: Set<String> = [
        "afr", "bos", "cat", "ces", "cym", "dan", "deu", "eng", "epo", "est", "eus", "fin", "fra", "frk", "gla", "gle",
        "glg", "hrv", "hun", "ind", "isl", "ita", "lat", "lav", "lit", "ltz", "mlt", "msa", "nld", "nor", "oci", "pol",
        "por", "ron", "slk", "slv", "spa", "sqi", "srp_latn", "swa", "swe", "tgl", "tur", "uzb", "equ",
    ]
    /// Languages only the full model reads (Chinese characters and kana).
    public static let fullLanguages: Set<String> = ["chi_sim", "chi_tra", "jpn"]

    /// The model that reads every language of `language` (Tesseract's `eng+deu` form):
    /// Latin-only for Latin languages (cheaper), the full one when Chinese or Japanese is
    /// among them; nil when one is neither (Korean, Hindi, Arabic, …: Tesseract reads them).
    public static func variant(forLanguage language: String) -> Variant? {
        let languages = language.split(separator: "+").map(String.init).filter { $0 != "osd" }
        guard !languages.isEmpty, languages.allSatisfy({ latinLanguages.contains($0) || fullLanguages.contains($0) }) else { return nil }
        return languages.contains(where: fullLanguages.contains) ? .full : .latin
    }

    /// The character list beside the network at `modelPath` (its `.onnx` replaced by `.txt`).
    public static func charactersPath(forModel modelPath: String) -> String {
        (modelPath.hasSuffix(".onnx") ? String(modelPath.dropLast(5)) : modelPath) + ".txt"
    }

    /// The network to load: `explicit` when given (it must exist), else the first file
    /// named `variant`'s file name (or its legacy name) in the detector model's folders.
    /// - Throws: ``NeuralEngineError/modelNotFound(searched:)`` naming where it looked, or
    ///   ``NeuralEngineError/modelUnreadable(_:)`` for an `explicit` path that is no readable file.
    public static func locate(explicit: String?, variant: Variant = .latin,
                              environment: [String: String] = ProcessInfo.processInfo.environment) throws(NeuralEngineError) -> String {
        if let explicit {
            guard isReadableFile(explicit) else { throw .modelUnreadable(explicit) }
            return explicit
        }
        let folders = DetectorModel.searchFolders(environment: environment)
        let candidates = folders.flatMap { [$0 + "/" + variant.fileName, $0 + "/" + variant.legacyFileName] }
        guard let found = candidates.first(where: isReadableFile) else {
            throw .modelNotFound(searched: folders)
        }
        return found
    }

    /// The characters in the file at `path`, one per line (nothing trimmed: a line may be
    /// a space of its own, as the full model's U+3000 is).
    /// - Throws: ``NeuralEngineError/charactersUnreadable(_:)``.
    public static func characters(at path: String) throws(NeuralEngineError) -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .charactersUnreadable(path) }
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard !lines.isEmpty, lines.allSatisfy({ !$0.isEmpty }) else { throw .charactersUnreadable(path) }
        return lines
    }

    static func isReadableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isReadableFile(atPath: path)
    }
}
