import Foundation
import LectorSystem

/// The espeak-ng program, run once per utterance with the text on its standard input.
///
/// The program rather than the library (libespeak-ng): a process per line keeps C out
/// of `lector` (no C target, no callbacks from espeak's audio thread), starts in tens
/// of milliseconds, and is interrupted the simplest way there is: ending the process
/// stops its sound at once, with nothing left in a queue to cancel.
public struct EspeakProgram: Sendable {
    public let path: String

    /// The first `espeak-ng` on `PATH`.
    public static func find(environment: [String: String] = ProcessInfo.processInfo.environment) throws(SpeakError) -> EspeakProgram {
        let searched = environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in searched.split(separator: ":") {
            let path = "\(folder)/espeak-ng"
            if FileManager.default.isExecutableFile(atPath: path) { return EspeakProgram(path: path) }
        }
        throw .noEspeak(searched: searched)
    }

    /// The arguments that say `utterance` at `rate` (and, with `wav`, write it there and
    /// the phonemes espeak-ng heard beside it instead of playing it).
    func arguments(_ utterance: Utterance, rate: Int, wav: (audio: String, phonemes: String)? = nil) -> [String] {
        var arguments = ["-v", utterance.voice, "-s", String(rate)]
        if let wav { arguments += ["-w", wav.audio, "-x", "--phonout=\(wav.phonemes)"] }
        return arguments + ["--stdin"]
    }

    /// Starts espeak-ng on `utterance`.
    func start(_ utterance: Utterance, rate: Int, wav: (audio: String, phonemes: String)? = nil) throws(SpeakError) -> ChildProcess {
        let child: ChildProcess
        do {
            child = try ChildProcess(path: path, arguments: arguments(utterance, rate: rate, wav: wav),
                                     environment: ProcessInfo.processInfo.environment)
        } catch {
            throw .espeakFailed("cannot start \(path): \(error)")
        }
        child.sendInput(Array((Self.plainText(utterance.text) + "\n").utf8))
        return child
    }

    /// `text` as espeak-ng must read it: as words, with none of its markup obeyed. The
    /// program always takes `[[…]]` as phonemes (a sign reading `[[h@'loU]]` would be
    /// spoken as the phonemes it spells) and a control character 0x01 as the start of an
    /// embedded command (`\u{01}80S`: speed); SSML is off (no `-m`). So `[[` becomes
    /// `[ [` and every control character a space.
    static func plainText(_ text: String) -> String {
        var plain = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        while plain.contains("[[") { plain = plain.replacingOccurrences(of: "[[", with: "[ [") }
        return plain
    }
}
