import LectorProtocol

/// How far one read got. A read that runs out of time keeps the lines it read and the
/// next frames of the scene go on with the others (the detector layout); a read of
/// Tesseract's layout is whole or fails.
public struct ReadProgress: Equatable, Sendable {
    /// Lines of the scene not read yet.
    public var unreadLines = 0
    /// Lines read that the neural line recognizer is still to read again (a short line,
    /// or one Tesseract read unsure); not counted in ``unreadLines``.
    public var linesToReadAgain = 0
    /// Whether the reading direction of some lines is still being voted.
    public var directionsUndecided = false
    /// Whether the deadline ended the read before every line was read in it.
    public var outOfTime = false
    /// Boxes of the lines in the text that an earlier frame of the scene read (this read
    /// did not): seen again, not read again.
    public var carriedLines: Set<PixelBox> = []
    /// Boxes of the lines whose pixels were those of their last reading: that reading
    /// stands, repeated (not read again, and no new evidence of what the line says).
    public var repeatedLines: Set<PixelBox> = []
    /// With zones: the zones the deadline left unread (in the zones' order); they are
    /// counted in ``unreadLines`` too.
    public var unreadZones: [String] = []

    /// Whether every line of the scene has been read.
    public var isComplete: Bool { unreadLines == 0 }

    public init(unreadLines: Int = 0, linesToReadAgain: Int = 0, directionsUndecided: Bool = false, outOfTime: Bool = false,
                carriedLines: Set<PixelBox> = [], repeatedLines: Set<PixelBox> = [], unreadZones: [String] = []) {
        self.unreadZones = unreadZones
        self.unreadLines = unreadLines
        self.linesToReadAgain = linesToReadAgain
        self.directionsUndecided = directionsUndecided
        self.outOfTime = outOfTime
        self.carriedLines = carriedLines
        self.repeatedLines = repeatedLines
    }
}
