import LectorRecognition
import Testing

@Suite("--lang auto: scripts to languages")
struct ScriptLanguagesTests {
    static let installed: Set<String> = ["eng", "osd", "chi_sim", "jpn", "kor", "hin"]

    @Test("the installed traineddata that read a script, in the order they are tried", arguments: [
        ("Latin", ["eng"], [String]()),
        ("Han", ["chi_sim", "jpn"], []),
        ("Japanese", ["jpn"], []),
        ("Korean", ["kor"], []),
        ("Devanagari", ["hin"], []),
        ("Cyrillic", ["eng"], ["rus"]),
        ("Fraktur?", ["eng"], []),
    ])
    func choice(script: String, languages: [String], missing: [String]) {
        let choice = ScriptLanguages.choose(script: script, installed: Self.installed)
        #expect(choice == ScriptLanguages.Choice(languages: languages, missing: missing), "\(script)")
        #expect(choice.language == languages[0])
    }

    @Test func hanWithOnlyJapanese() {
        let choice = ScriptLanguages.choose(script: "Han", installed: ["eng", "jpn"])
        #expect(choice.language == "jpn" && choice.missing == ["chi_sim"])
    }

    @Test func noScriptReadsLatin() {
        #expect(ScriptLanguages.choose(script: nil, installed: Self.installed).language == "eng")
    }

    @Test("the languages a scene is read in until one fits: the script's, then the other installed scripts'", arguments: [
        ("Han", ["chi_sim", "jpn", "eng", "kor", "hin"]),
        ("Japanese", ["jpn", "chi_sim", "eng", "kor", "hin"]),
        ("Devanagari", ["hin", "eng", "chi_sim", "jpn", "kor"]),
        ("Latin", ["eng", "chi_sim", "jpn", "kor", "hin"]),
        ("Cyrillic", ["eng", "chi_sim", "jpn", "kor", "hin"]),
    ])
    func candidates(script: String, languages: [String]) {
        #expect(ScriptLanguages.candidates(script: script, installed: Self.installed) == languages)
        #expect(ScriptLanguages.candidates(script: script, installed: ["eng", "hin"]) == languages.filter { ["eng", "hin"].contains($0) })
    }

    @Test("Debian's package of a language", arguments: [("chi_sim", "tesseract-ocr-chi-sim"), ("kor", "tesseract-ocr-kor")])
    func package(language: String, package: String) {
        #expect(ScriptLanguages.package(of: language) == package)
    }
}
