import Foundation

/// `--lang auto`: which installed traineddata reads a script that Tesseract's OSD names.
///
/// Latin stays the camera's cheap default (`eng`): loading every Latin language at once
/// made a 960x540 frame take over 3 s. Han may be Chinese or Japanese (signs in kanji
/// alone exist): `chi_sim` reads it first, `jpn` when the characters say so
/// (``LanguageEvidence``); each reads alone (read together, Japanese forms crept into
/// Chinese: 左辺 for 左边).
public enum ScriptLanguages {
    /// What `--lang` says to pick the language per scene.
    public static let automatic = "auto"
    /// The language of Latin text, and of any scene whose script is not found.
    public static let latin = "eng"

    /// The traineddata that read each OSD script, in the order they are tried.
    static let table: [String: [String]] = [
        "Latin": [latin],
        "Han": ["chi_sim", "jpn"],
        "Japanese": ["jpn"], "Katakana": ["jpn"], "Hiragana": ["jpn"],
        "Korean": ["kor"], "Hangul": ["kor"],
        "Devanagari": ["hin"],
        "Cyrillic": ["rus"], "Greek": ["ell"], "Arabic": ["ara"], "Hebrew": ["heb"], "Thai": ["tha"],
        "Bengali": ["ben"], "Tamil": ["tam"], "Telugu": ["tel"], "Kannada": ["kan"], "Malayalam": ["mal"],
        "Gujarati": ["guj"], "Gurmukhi": ["pan"], "Georgian": ["kat"], "Armenian": ["hye"], "Ethiopic": ["amh"],
        "Khmer": ["khm"], "Lao": ["lao"], "Myanmar": ["mya"], "Sinhala": ["sin"], "Tibetan": ["bod"],
    ]

    /// The choice for `script` (nil: not found) among the `installed` languages.
    public struct Choice: Equatable, Sendable {
        /// The `--lang` to read with first (`eng` when nothing that covers the script is installed).
        public var language: String { languages.first ?? ScriptLanguages.latin }
        /// The installed languages that read the script, in the order they are tried.
        public var languages: [String]
        /// Languages that would read the script and are not installed.
        public var missing: [String]

        public init(languages: [String], missing: [String]) {
            self.languages = languages
            self.missing = missing
        }
    }

    /// What reads `script` with what is `installed`.
    public static func choose(script: String?, installed: Set<String>) -> Choice {
        guard let script, let wanted = table[script] else { return Choice(languages: [latin], missing: []) }
        let present = wanted.filter(installed.contains)
        return Choice(languages: present.isEmpty ? [latin] : present, missing: wanted.filter { !installed.contains($0) })
    }

    /// The languages tried on a scene whose read in the language before them does not
    /// fit (``LanguageEvidence/fits(_:)``), after the choice for its script: OSD misnames
    /// a sign of a few characters (Devanagari for 出口在左边, Latin for निकास द्वार).
    static let fallbacks = [latin, "chi_sim", "jpn", "kor", "hin"]

    /// The languages to read a scene in, in order, when each read before does not fit:
    /// what reads `script` (nil: not found) among the `installed`, the other of Chinese
    /// and Japanese after either (OSD named 安全出口 Katakana), then the ``fallbacks``
    /// that are installed.
    public static func candidates(script: String?, installed: Set<String>) -> [String] {
        let own = choose(script: script, installed: installed).languages, han = table["Han"] ?? []
        var seen = Set<String>()
        return (own + (own.contains(where: han.contains) ? han : []) + fallbacks).filter { installed.contains($0) && seen.insert($0).inserted }
    }

    /// Debian's package of a language's traineddata (`chi_sim` → `tesseract-ocr-chi-sim`).
    public static func package(of language: String) -> String {
        "tesseract-ocr-" + language.lowercased().replacingOccurrences(of: "_", with: "-")
    }
}
