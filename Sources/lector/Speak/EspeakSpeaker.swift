import LectorSystem

/// Speech through the speaker: espeak-ng plays each line itself; a cut ends it.
public final class EspeakSpeaker: SpeechOutput {
    let program: EspeakProgram
    let rate: Int

    public init(program: EspeakProgram, rate: Int) {
        self.program = program
        self.rate = rate
    }

    public func start(_ utterance: Utterance, now: MonotonicInstant) throws(SpeakError) -> any SpeechPlayback {
        Playing(child: try program.start(utterance, rate: rate))
    }

    final class Playing: SpeechPlayback {
        let child: ChildProcess
        init(child: ChildProcess) { self.child = child }

        func hasEnded(now: MonotonicInstant) -> Bool { child.hasExited() }

        func finish(interrupted: Bool, now: MonotonicInstant) -> String? {
            if interrupted { child.terminate() }
            let (ending, errors) = child.finish(timeout: interrupted ? 1 : 600)
            guard !interrupted else { return nil }
            // espeak-ng exits 0 even when it found no sound device: its errors say so.
            let last = errors.split(separator: "\n").last.map(String.init)
            if ending == .exited(0) { return last.map { "espeak-ng could not play (is there a sound card?): \($0)" } }
            return "espeak-ng: \(ending)" + (last.map { ": \($0)" } ?? "")
        }
    }
}
