import LectorProtocol
import LectorSystem

/// One line of text followed across frames: its recent observations, their consensus,
/// and what was last announced about it.
public struct LineTrack: Sendable {
    /// One reading of the line in one recognized frame.
    public struct Observation: Sendable {
        public var words: [VotedWord]
        /// Where the line was, in the upright image of its frame.
        public var box: PixelBox
        /// The same box moved back by the frame's global shift (the stack's reference).
        public var position: PixelBox
        public var time: MonotonicInstant
        /// How much the reading counts in the vote besides its confidence (see ``LineTracker/Line/strength``).
        public var strength: Double
        /// Read by the engine the detector keeps for a line whose first reading was unsure
        /// (the neural line recognizer after Tesseract): the track's earlier readings by
        /// the first engine stop voting once it comes, as the detector stops publishing
        /// them. (Measured in tests/live: Tesseract's "Saturday 9am to lpm", read twice
        /// before the neural recognizer's "… 1pm", outvoted it, and the scene's still
        /// frames were not read again until its refresh.)
        public var isReread: Bool

        public init(words: [VotedWord], box: PixelBox, position: PixelBox, time: MonotonicInstant, strength: Double = 1,
                    isReread: Bool = false) {
            self.strength = strength
            self.isReread = isReread
            self.words = words
            self.box = box
            self.position = position
            self.time = time
        }

        public var text: String { words.map(\.text).joined(separator: " ") }
    }

    /// Unique per device for the daemon's run: "1", "2", …
    public let id: String
    public private(set) var observations: [Observation] = []
    /// All observations ever made, not only the recent ones kept.
    public private(set) var observationCount = 0
    public let firstSeen: MonotonicInstant
    public private(set) var lastSeen: MonotonicInstant
    /// The vote over ``observations``.
    public private(set) var consensus = ""
    public private(set) var confidence = 0.0
    /// Consecutive observations after which the consensus stayed the same.
    public private(set) var agreeing = 0
    /// The text last announced (`new` or `changed`); nil before the track settles.
    public var announced: String?
    /// How often the latest observation was repeated since it was made (see
    /// ``repeatLatest(box:position:at:)``).
    public private(set) var repeats = 0

    public init(id: String, first: Observation) {
        self.id = id
        firstSeen = first.time
        lastSeen = first.time
    }

    /// The latest observation.
    public var latest: Observation? { observations.last }

    /// Adds an observation, keeping the last `window`, and votes again.
    public mutating func observe(_ observation: Observation, window: Int) {
        if observation.isReread { observations.removeAll { !$0.isReread } }
        observations.append(observation)
        if observations.count > window { observations.removeFirst(observations.count - window) }
        observationCount += 1
        repeats = 0
        lastSeen = observation.time
        let vote = TextVote.consensus(observations.map(\.words), strengths: observations.map(\.strength))
        agreeing = Self.sameText(vote.text, consensus) ? agreeing + 1 : 1
        consensus = vote.text
        confidence = vote.confidence
    }

    /// Counts a reading that repeats the latest one (its line's pixels had not changed,
    /// so the detector kept that reading): the line is where `box` and `position` say,
    /// and the consensus held once more (towards settling, and for
    /// ``stillReadsWordsLeftOut(by:inLast:)`` a reading like the latest), but the vote
    /// gets no new weight. (Measured in tests/live under load: a full stack's reading
    /// "Saturday9am to 1pm", repeated by the detector's line cache, counted twice, tied
    /// two later independent readings of "Saturday 9am to 1pm", and the track kept the
    /// first split for the rest of the scene.)
    public mutating func repeatLatest(box: PixelBox, position: PixelBox, at time: MonotonicInstant) {
        guard let last = observations.indices.last else { return }
        observations[last].box = box
        observations[last].position = position
        observationCount += 1
        repeats += 1
        lastSeen = max(lastSeen, time)
        if !consensus.isEmpty { agreeing += 1 }
    }

    /// Whether two readings say the same, spaces aside: Tesseract splits "500g" or
    /// "500 g" from one frame to the next, and that does not unsettle a vote (the tracker
    /// announces a new split only once every recent reading has it).
    public static func sameText(_ a: String, _ b: String) -> Bool {
        a.filter { !$0.isWhitespace } == b.filter { !$0.isWhitespace }
    }

    /// Whether one of the last `count` observations still read a word of the announced
    /// text that `text` leaves out (drops, or reads as another word). Tesseract loses or
    /// misreads a word of a dim or noisy line far more often than a still label changes,
    /// so a `changed` needs every recent reading to agree that the announced words are
    /// gone; a majority of the window is enough for a change that only adds words.
    /// (Measured in tests/live: dim scenes' "Current 16 A max" was once announced as
    /// changed to "Current 16 A", and "Gate B12 boarding 18:05" to "Gate 812 …", a card
    /// whose stacks read "B12" 148 times and "812" 21 times in 210 reads.)
    public func stillReadsWordsLeftOut(by text: String, inLast count: Int) -> Bool {
        guard let announced else { return false }
        var leftOut = announced.split(separator: " ")
        for word in text.split(separator: " ") {
            if let index = leftOut.firstIndex(of: word) { leftOut.remove(at: index) }
        }
        guard !leftOut.isEmpty else { return false }
        let words = Set(leftOut.map(String.init))
        // The repeats of the latest observation count as readings like it; only the last
        // `count` readings matter (a still scene's repeats can run into the hundreds).
        let readings = observations.suffix(count).map(\.words) + Array(repeating: latest?.words ?? [], count: min(repeats, count))
        return readings.suffix(count).contains { $0.contains { words.contains($0.text) } }
    }

    /// Counts a frame the gate skipped as seeing the line.
    public mutating func touch(at time: MonotonicInstant) { lastSeen = max(lastSeen, time) }

    /// Whether the consensus has held for `count` observations.
    public func isSettled(after count: Int) -> Bool { agreeing >= count && !consensus.isEmpty }
}
