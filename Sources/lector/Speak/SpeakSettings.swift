/// What `lector speak` was asked to do.
public struct SpeakSettings: Equatable, Sendable {
    /// The camera read aloud; nil: the only one lectord has.
    public var device: String?
    /// An espeak-ng voice for every line (`en-gb`); nil: each line's language picks it.
    public var voice: String?
    /// Words per minute (espeak-ng's `-s`).
    public var rate = SpeakSettings.defaultRate
    /// Lines whose track confidence is below this are not spoken.
    public var minimumConfidence = 0.0
    /// The same text is not spoken again until this many seconds after it was last
    /// spoken whole.
    public var repeatAfter = SpeakSettings.defaultRepeatAfter
    /// Write what would be spoken to numbered WAV files here instead of playing it.
    public var wavDirectory: String?

    /// espeak-ng's own default rate.
    public static let defaultRate = 175
    /// A page looked at again within a minute is not read again.
    public static let defaultRepeatAfter = 60.0
    /// How long the first settled line of a scene waits for the other lines the latest
    /// text holds to settle too, so that they are spoken in reading order.
    public static let orderGraceSeconds = 1.0
    /// …and how long it waits while the latest text is a partial read (a slow machine
    /// reads a scene over several frames, not always from its top line).
    public static let partialGraceSeconds = 5.0

    public init() {}
}
