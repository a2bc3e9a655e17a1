/// One line to speak.
public struct Utterance: Equatable, Sendable {
    public var device: String
    /// The line track it reads (TRACK's id).
    public var track: String
    public var text: String
    public var voice: String
}
