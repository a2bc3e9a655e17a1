import LectorRecognition
import Testing

@Suite("--lang auto: scripts to languages")
struct ScriptLanguagesTests {
    static let installed: Set<String> = ["eng", "osd", "chi_sim", "jpn", "kor", "hin"]

    @Test("the installed traineddata that read a script", arguments: [
        ("Latin", "eng", [String]()),
        ("Han", "chi_sim+jpn", []),
        ("Japanese", "jpn", []),
        ("Korean", "kor", []),
        ("Devanagari", "hin", []),
        ("Cyrillic", "eng", ["rus"]),
        ("Fraktur?", "eng", []),
    ])
    func choice(script: String, language: String, missing: [String]) {
        let choice = ScriptLanguages.choose(script: script, installed: Self.installed)
        #expect(choice == ScriptLanguages.Choice(language: language, missing: missing), "\(script)")
    }

    @Test func hanWithOnlyJapanese() {
        let choice = ScriptLanguages.choose(script: "Han", installed: ["eng", "jpn"])
        #expect(choice.language == "jpn" && choice.missing == ["chi_sim"])
    }

    @Test func noScriptReadsLatin() {
        #expect(ScriptLanguages.choose(script: nil, installed: Self.installed).language == "eng")
    }

    @Test("Debian's package of a language", arguments: [("chi_sim", "tesseract-ocr-chi-sim"), ("kor", "tesseract-ocr-kor")])
    func package(language: String, package: String) {
        #expect(ScriptLanguages.package(of: language) == package)
    }
}
