import LectorProtocol
import LectorSystem

/// Follows the lines of one camera's recognized frames: associates each line with a
/// track by position (after the frame's global shift) and text similarity, votes each
/// track's text, and says when a track settles, changes or goes.
///
/// Not thread-safe: one owner (the camera's recognizer thread).
public final class LineTracker {
    public struct Settings: Sendable, Equatable {
        /// Observations kept per track.
        public var window = 8
        /// Observations a consensus must hold before it is announced. (Measured on
        /// tests/live's scene switches: with 3, the first reading of a new scene, from a
        /// stack of one frame, had to be right already, and 1 line in 14 came a
        /// recognition or two late; with 2 every line came within 3, and the still
        /// scenes' stability held.)
        public var settleCount = 2
        /// Observations a different consensus must hold before it replaces an announced
        /// text (`changed`): more than for `new`, since a settled text is usually right
        /// and a short run of misreadings (a restarted stack, "10:4" for "10:42") is not.
        public var changeCount = 4
        /// A track unseen this long is gone.
        public var timeoutMilliseconds = 1500.0

        public init() {}
    }

    public let device: String
    public var settings: Settings
    public private(set) var tracks: [LineTrack] = []
    private var nextID = 1
    /// Ids of the tracks seen in the latest recognized frame.
    private var latestSeen: Set<String> = []

    public init(device: String, settings: Settings = Settings()) {
        self.device = device
        self.settings = settings
    }

    /// One recognized line to place.
    public struct Line: Sendable {
        public var words: [VotedWord]
        public var box: PixelBox
        /// How much the reading counts in its track's vote besides its confidence: the
        /// square root of the frames its image averages (noise falls with that root), so
        /// a reading of a full stack outweighs the first readings of a single frame.
        public var strength: Double
        /// The line as an earlier frame of the scene read it (a read that ran out of time
        /// carries it over): it keeps its track alive but is no new vote.
        public var isCarried: Bool
        /// The line's last reading, standing because its pixels have not changed since (the
        /// detector did not read it again): it confirms the track's latest reading, as
        /// ``LineTrack/repeatLatest(box:position:at:)`` says, but is no new vote.
        public var isRepeated: Bool
        /// Read by the engine kept for lines whose first reading was unsure (the neural
        /// line recognizer after Tesseract): see ``LineTrack/Observation/isReread``.
        public var isReread: Bool

        public init(words: [VotedWord], box: PixelBox, strength: Double = 1, isCarried: Bool = false, isRepeated: Bool = false,
                    isReread: Bool = false) {
            self.strength = strength
            self.words = words
            self.box = box
            self.isCarried = isCarried
            self.isRepeated = isRepeated
            self.isReread = isReread
        }
    }

    /// Places the lines of one recognized frame.
    /// - Parameters:
    ///   - shift: the frame's global shift in the upright image (content moved by it).
    ///   - newScene: the frame shows a new scene (its stack started again): a track that
    ///     no line matched, where a line of this frame now is, ends at once (`gone`)
    ///     instead of after the timeout — a label replaced by another at the same place.
    /// - Returns: the track id of each line, in order, and the events this caused
    ///   (including `gone` for tracks that timed out).
    public func update(lines: [Line], shift: (dx: Int, dy: Int), at time: MonotonicInstant, newScene: Bool = false)
        -> (ids: [String], events: [TrackEvent]) {
        var ids = [String](repeating: "", count: lines.count)
        // Every plausible (line, track) pair, best first.
        var candidates: [(score: Double, line: Int, track: Int)] = []
        let positions = lines.map { $0.box.offset(dx: -shift.dx, dy: -shift.dy) }
        for (lineIndex, line) in lines.enumerated() {
            let text = line.words.map(\.text).joined(separator: " ")
            for (trackIndex, track) in tracks.enumerated() {
                guard let last = track.latest else { continue }
                let overlap = Self.overlap(positions[lineIndex], last.position)
                guard overlap > 0.15 else { continue }
                let similarity = TextSimilarity.similarity(text, track.consensus.isEmpty ? last.text : track.consensus)
                // Position alone is not enough: new text where old text was is a new track.
                // (Measured: unrelated label lines are 0.08–0.35 alike; rereads of one line
                // with a few wrong characters 0.6 and more.)
                guard similarity >= 0.5 || (overlap >= 0.6 && similarity >= 0.4) else { continue }
                candidates.append((overlap + similarity, lineIndex, trackIndex))
            }
        }
        candidates.sort { $0.score > $1.score }
        var lineTaken = Set<Int>(), trackTaken = Set<Int>()
        var events: [TrackEvent] = []
        for candidate in candidates where !lineTaken.contains(candidate.line) && !trackTaken.contains(candidate.track) {
            lineTaken.insert(candidate.line)
            trackTaken.insert(candidate.track)
            let line = lines[candidate.line]
            if line.isCarried {
                tracks[candidate.track].touch(at: time)
            } else if line.isRepeated {
                tracks[candidate.track].repeatLatest(box: line.box, position: positions[candidate.line], at: time)
            } else {
                tracks[candidate.track].observe(.init(words: line.words, box: line.box, position: positions[candidate.line], time: time,
                                                      strength: line.strength, isReread: line.isReread),
                                                window: settings.window)
            }
            ids[candidate.line] = tracks[candidate.track].id
        }
        let replaced: Set<String> = !newScene ? [] : Set(tracks.indices.filter { index in
            guard !trackTaken.contains(index), let last = tracks[index].latest else { return false }
            return positions.contains { Self.overlap($0, last.position) >= 0.5 }
        }.map { tracks[$0].id })
        for (index, line) in lines.enumerated() where !lineTaken.contains(index) {
            let observation = LineTrack.Observation(words: line.words, box: line.box, position: positions[index], time: time,
                                                    strength: line.strength, isReread: line.isReread)
            var track = LineTrack(id: String(nextID), first: observation)
            nextID += 1
            track.observe(observation, window: settings.window)
            tracks.append(track)
            ids[index] = track.id
        }
        latestSeen = Set(ids)
        for index in tracks.indices where latestSeen.contains(tracks[index].id) {
            if let event = announce(&tracks[index]) { events.append(event) }
        }
        events += remove { replaced.contains($0.id) }
        events += expire(at: time)
        return (ids, events)
    }

    /// The event, if any, that a track's current consensus calls for; records it.
    private func announce(_ track: inout LineTrack) -> TrackEvent? {
        // A vote that only moved a space ("500g" announced, "500 g" now) changes the text
        // too, once the last readings all split it the new way (a mix of both splits,
        // Tesseract's usual flicker, keeps what was announced): a neural re-read that
        // splits it right corrects the first announcement. (Measured in tests/live: "Net
        // weight 500g" announced from two of Tesseract's readings stayed so while every
        // later reading said "500 g".)
        guard track.isSettled(after: track.announced == nil ? settings.settleCount : settings.changeCount),
              track.announced != track.consensus,
              !track.stillReadsWordsLeftOut(by: track.consensus, inLast: settings.changeCount) else { return nil }
        let kind: TrackEvent.Kind = track.announced == nil ? .new : .changed
        track.announced = track.consensus
        return event(kind, track, text: track.consensus)
    }

    private func event(_ kind: TrackEvent.Kind, _ track: LineTrack, text: String) -> TrackEvent {
        TrackEvent(device: device, id: track.id, kind: kind, text: text, box: track.latest?.box ?? PixelBox(x: 0, y: 0, width: 0, height: 0),
                   confidence: track.confidence, observations: track.observationCount,
                   firstSeen: track.firstSeen, lastSeen: track.lastSeen)
    }

    /// A frame the gate skipped: every track of the scene (seen in the latest
    /// recognized frame) counts as seen again.
    public func touchAll(at time: MonotonicInstant) {
        for index in tracks.indices where latestSeen.contains(tracks[index].id) { tracks[index].touch(at: time) }
    }

    /// Ends every track (the camera was turned another way); `gone` for those that were
    /// announced.
    public func endAll() -> [TrackEvent] {
        latestSeen = []
        return remove { _ in true }
    }

    /// Removes tracks unseen for the timeout; `gone` for those that were announced.
    public func expire(at time: MonotonicInstant) -> [TrackEvent] {
        remove { time.milliseconds(since: $0.lastSeen) > settings.timeoutMilliseconds }
    }

    /// Removes the tracks `condition` names; `gone` for those that were announced.
    private func remove(where condition: (LineTrack) -> Bool) -> [TrackEvent] {
        var events: [TrackEvent] = []
        tracks.removeAll { track in
            guard condition(track) else { return false }
            if let announced = track.announced { events.append(event(.gone, track, text: announced)) }
            return true
        }
        return events
    }

    /// Whether every track is settled with nothing pending: seen in the latest
    /// recognized frame, its vote held, and says what was announced (a vote that moved
    /// away from the announced text is read again until it is announced as `changed` or
    /// moves back). The gate may then skip an unchanged frame; the recognition loop
    /// bounds how often a scene that never settles is read.
    ///
    /// A track the latest frame missed is pending too, until it is seen again or times
    /// out: Tesseract sometimes reads nothing at all in a dim full stack, and that read
    /// must not count as a settled scene. (Measured in tests/live's scenes: such an empty
    /// read let the gate skip the scene until its 10 s refresh, twice in a row, and the
    /// announced tracks went `gone` meanwhile.)
    public var isSettled: Bool {
        tracks.allSatisfy { track in
            latestSeen.contains(track.id) && track.isSettled(after: settings.settleCount)
                && (track.announced.map { $0 == track.consensus } ?? true)
        }
    }

    /// The current consensus of the track called `id`.
    public func consensus(of id: String) -> String? { tracks.first { $0.id == id }?.consensus }

    /// Intersection over the smaller box's area (a line read shorter is still the line).
    static func overlap(_ a: PixelBox, _ b: PixelBox) -> Double {
        let width = min(a.maxX, b.maxX) - max(a.x, b.x), height = min(a.maxY, b.maxY) - max(a.y, b.y)
        guard width > 0, height > 0 else { return 0 }
        return Double(width * height) / Double(max(1, min(a.area, b.area)))
    }
}
