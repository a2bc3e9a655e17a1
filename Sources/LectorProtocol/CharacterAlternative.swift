/// A character a recognizer ranked next at one place of a word (the neural engine's
/// runner-up class at a character's steps): `O` with 0.3 where it read `0`. Kept inside
/// lectord for its rules' look-alike correction (``TextWord/alternatives``); not on the
/// wire, which carries what was read.
public struct CharacterAlternative: Sendable, Equatable, Hashable {
    /// The character's offset in its word's text (in Characters).
    public var offset: Int
    /// The character ranked next.
    public var character: Character
    /// The probability the recognizer gave it there (0…1).
    public var probability: Double

    public init(offset: Int, character: Character, probability: Double) {
        self.offset = offset
        self.character = character
        self.probability = probability
    }
}
