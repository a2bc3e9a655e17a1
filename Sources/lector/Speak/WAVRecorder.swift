import Foundation
import LectorProtocol
import LectorSystem

/// Speech into numbered WAV files (`0001.wav`, `0002.wav`, ...) instead of the speaker,
/// in real time: each file is "played" for as long as it lasts, and an utterance cut
/// short is cut there, so each file holds what a listener would have heard. Beside each:
/// `NNNN.phonemes`, the phonemes espeak-ng spoke (`-x`), and `NNNN.json`, what was said
/// (text, voice, rate, device, track, full and spoken seconds, whether it was cut).
public final class WAVRecorder: SpeechOutput {
    let program: EspeakProgram
    let rate: Int
    let directory: String
    private var count = 0

    public init(program: EspeakProgram, rate: Int, directory: String) throws(SpeakError) {
        self.program = program
        self.rate = rate
        self.directory = directory
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .file(path: directory, reason: "cannot create the folder: \(error.localizedDescription)")
        }
        // Numbering goes on after the files already there.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        count = names.compactMap { $0.hasSuffix(".wav") ? Int($0.dropLast(4)) : nil }.max() ?? 0
    }

    public func start(_ utterance: Utterance, now: MonotonicInstant) throws(SpeakError) -> any SpeechPlayback {
        count += 1
        let base = (directory as NSString).appendingPathComponent(String(format: "%04d", count))
        let child = try program.start(utterance, rate: rate, wav: (base + ".wav", base + ".phonemes"))
        let (ending, errors) = child.finish(timeout: 60)
        guard ending == .exited(0) else { throw .espeakFailed("\(ending)" + (errors.isEmpty ? "" : ": \(errors)")) }
        return Recording(utterance: utterance, rate: rate, base: base, wav: try WAVFile(path: base + ".wav"), started: now)
    }

    final class Recording: SpeechPlayback {
        let utterance: Utterance
        let rate: Int
        let base: String
        let wav: WAVFile
        let started: MonotonicInstant

        init(utterance: Utterance, rate: Int, base: String, wav: WAVFile, started: MonotonicInstant) {
            self.utterance = utterance
            self.rate = rate
            self.base = base
            self.wav = wav
            self.started = started
        }

        func hasEnded(now: MonotonicInstant) -> Bool { now.milliseconds(since: started) >= wav.seconds * 1000 }

        func finish(interrupted: Bool, now: MonotonicInstant) -> String? {
            let heard = min(wav.seconds, now.milliseconds(since: started) / 1000)
            do {
                if interrupted { try wav.truncate(toSeconds: heard) }
            } catch {
                return "\(error)"
            }
            var notes = JSONObjectBuilder()
            notes.add("text", utterance.text)
            notes.add("voice", utterance.voice)
            notes.add("rate", rate)
            notes.add("device", utterance.device)
            notes.add("track", utterance.track)
            notes.add("seconds", wav.seconds)
            notes.add("spoken_seconds", interrupted ? heard : wav.seconds)
            notes.add("interrupted", interrupted)
            let line = JSONWriter.string(notes.value) + "\n"
            guard FileManager.default.createFile(atPath: base + ".json", contents: Data(line.utf8)) else {
                return "\(base).json: cannot write it"
            }
            return nil
        }
    }
}
