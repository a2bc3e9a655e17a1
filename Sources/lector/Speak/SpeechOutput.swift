import LectorSystem

/// Where speech goes: a speaker (``EspeakSpeaker``) or WAV files (``WAVRecorder``).
public protocol SpeechOutput: AnyObject {
    /// Starts saying `utterance`; the returned playback says when it is over.
    func start(_ utterance: Utterance, now: MonotonicInstant) throws(SpeakError) -> any SpeechPlayback
}

/// One utterance being said.
public protocol SpeechPlayback: AnyObject {
    /// Whether it has been said whole (or could not be said); then call ``finish(interrupted:now:)``.
    func hasEnded(now: MonotonicInstant) -> Bool
    /// Ends it: cut short where it is when `interrupted`. Called exactly once.
    /// - Returns: a problem worth telling the user (espeak-ng failed), or nil.
    func finish(interrupted: Bool, now: MonotonicInstant) -> String?
}
