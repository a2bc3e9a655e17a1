import Foundation
import LectorEngine
import LectorImaging
import LectorProtocol
import LectorSystem

/// The detector layout: text lines found by ``TextLineDetector``, each cut out and
/// straightened (``LineCrop``), read by Tesseract as a single line (page segmentation
/// 7) or by the neural line recognizer (``NeuralLineEngine``; which one: ``LineEngine``,
/// ``LinePolicy``), its words mapped back to the image, the lines grouped into blocks
/// (``LineBlocks``).
///
/// Detection is the expensive part (a network on the whole frame), so on a still scene
/// the lines found are kept and only read again: lines are detected again when the
/// scene changes (a new stack generation, or no scene hint at all), when a line that
/// read before comes back empty or far less confident (a lost track), and, once every
/// line was read, at least every ``redetectSeconds`` (at once, when the scene was first
/// detected at a smaller size, ``DetectionSize``, or on a stack still filling). What
/// has not changed is not done again (``PixelChange/isNegligible``): a scene due to be
/// detected again whose image is still the one its lines were detected on keeps them,
/// and a line whose pixels are still those it was read from keeps its reading (the same
/// pixels read the same). A frame's read that runs out of time keeps what it read, and
/// the next frames of the scene go on with the lines not read yet, each for a step of
/// the deadline (``stepShare``), as does a new scene's first frame a step after a quick
/// detection (a machine too slow for the full size): a slow machine reads a scene over
/// several frames, its text growing at each, the first part soon after the detection.
///
/// Not thread-safe, except ``cancel()`` and ``resume()``: one per recognizer.
package final class DetectorLayout {
    /// Lines are detected again at least this often on a still scene.
    static let redetectSeconds = 4.0
    /// Crop height Tesseract reads best at (image pixels of a line box, after scaling;
    /// 36 and 64 measured no better).
    let targetThickness = 48.0
    /// Lines whose reading direction is voted (both directions read) per detection.
    static let directionSamples = 3
    /// The share of the deadline a frame reads for when it goes on with lines an earlier
    /// frame of the scene left unread, and a new scene's first frame on a slow machine
    /// after its quick detection: the text grows in steps. (With half-deadline steps and
    /// the first frame reading for its whole deadline, a page's first half-text came at
    /// 3.0-3.5 s at a third of a core, 3.3-5.8 s at a sixth; with this, 2.2-2.4 s and
    /// 3.1-4.2 s; a sixth of the deadline measured no better; 2026-12-04, issue 40.)
    static let stepShare = 1.0 / 3
    /// Shallow lines are read upside down too when their plain reads score below this
    /// (mean confidence, a read without words scoring 0), and taken upside down when the
    /// turned reads score at least this: upright text reads far above it, upside-down
    /// text far below.
    static let upsideDownCheckBelow = 0.6
    /// ONNX Runtime's threads per session of the detector and the neural line
    /// recognizer (a camera's recognizers are its parallelism).
    package static let networkThreads = 1
    /// The first line a frame reads may take this long even past the frame's deadline,
    /// so that every frame reads at least one line and a scene is read whole on any
    /// machine: a line takes Tesseract 20–45 ms on these machines, about 3× that on a
    /// Pi 4's core. Past this, the line is abandoned (a stuck Tesseract call).
    static let firstLineMilliseconds = 5000

    /// Shared with the camera's other recognizers.
    package let detectors: DetectorPool
    private let engine: IsolatedRecognizer
    /// The neural line recognizer (nil: Tesseract reads every line) and when it reads.
    private let neural: NeuralLineEngine?
    private let engineChoice: LineEngine
    /// The language the neural recognizer's words report (it names none itself): the
    /// first of `--lang`'s, as Tesseract names its words' (`chi_sim` of `chi_sim+jpn`).
    private let neuralLanguage: String?
    /// The scene last detected: its lines and what each read.
    private var known: Scene?
    /// What a detection costs on this machine now: the size a new scene is detected at.
    private var detectionSize = DetectionSize()
    /// The last read's statistics (benchmarks, FRAME's recognize time is the loop's).
    package private(set) var lastRead = DetectorRead()

    /// - Parameters:
    ///   - neural: the neural line recognizer, read with as `engine` says (nil: Tesseract alone).
    package init(detectors: DetectorPool, language: String, dataPath: String?, neural: NeuralLineEngine? = nil,
         engine choice: LineEngine = .tesseract) throws(RecognitionError) {
        self.detectors = detectors
        engine = try IsolatedRecognizer(language: language, dataPath: dataPath, pageSegmentation: 7)
        self.neural = neural
        engineChoice = neural == nil ? .tesseract : choice
        neuralLanguage = language.split(separator: "+").first.map(String.init)
    }

    /// Words Tesseract reads in a line with less confidence than this are dropped: a
    /// line forced on Tesseract (page segmentation 7) yields a word even from a blank or
    /// a texture (blank crops read "re", "OS" at 0.0-0.096). Measured on the realworld
    /// sets: 0.1 keeps 10 of 40 plates (0: 12, 0.25: 8) at a document precision of 0.945
    /// (0: 0.939).
    let minimumWordConfidence = 0.1
    /// Fraction of a line's thickness added above and below before it is cut out
    /// (measured: 0 reads best, lines of a page are close; the padding below helps instead).
    let grow = 0.0
    /// Crop pixels of background around each line.
    let padding = 8

    /// Whether the neural line recognizer reads lines too.
    package var readsNeural: Bool { neural != nil }

    package func cancel() { engine.cancel() }
    package func resume() { engine.resume() }
    package var lastTimings: RecognitionTimings { engine.lastTimings }

    /// Forgets the lines known (the next read detects).
    func forget() { known = nil }

    /// Reads `image` within its deadline: finds the scene's lines (detected now, or the
    /// known ones moved with the scene, see the type's comment), decides their reading
    /// direction, then reads them in order of value (lines not read yet in this scene
    /// first, then those read longest ago) until every line is read or the deadline comes,
    /// and builds the tree of every line read in this scene so far, boxes in `image`'s
    /// pixels. A read that runs out of time ends at a line boundary and keeps what it read:
    /// the next frames of the scene go on with the lines not read yet
    /// (``lastRead``'s ``DetectorRead/unread``).
    /// - Parameters:
    ///   - deadline: milliseconds for the whole read, detection included.
    ///   - scene: the frame's scene from the live-text stack; nil: detect every frame.
    /// - Throws: ``RecognitionError/deadlineExceeded(milliseconds:)`` only when a detection
    ///   that outlasted the deadline found no line; ``RecognitionError/cancelled`` and
    ///   the engine's other errors.
    package func recognize(_ image: GrayImage, resolution: Int, deadline: Int, symbols: Bool,
                   scene hint: SceneHint?) throws(RecognitionError) -> RecognizedText {
        let probe = try probeBeforeFirstScene(of: image, deadline: deadline, hint: hint)
        var read = FrameRead(image: image, resolution: resolution, symbols: symbols, deadline: deadline, started: .now(),
                             stackFilling: hint.map { !$0.full } ?? false, probeMilliseconds: probe)
        var scene = try sceneToRead(hint: hint, read: &read)
        defer { known = scene }
        // A scene read over several frames publishes in steps: a new scene first looked at
        // small (a slow machine) a step after its detection, the next frames each after a
        // step, so that the first text does not wait for a whole deadline's reading.
        let step = max(1, Int(Double(deadline) * Self.stepShare))
        if read.stats.detected, read.stats.detectedSide < DetectionSize.full {
            read.stats.budgetMilliseconds = min(deadline, Int(read.stats.detectMilliseconds) + step)
        } else if !read.stats.detected, scene.lines.contains(where: { $0.reading == nil }) {
            read.stats.budgetMilliseconds = step
        }
        if scene.provisionalVote, !read.stackFilling { scene.forgetDirections() }
        do {
            try decideDirections(of: &scene, read: &read)
            for index in scene.readingOrder() { try readSceneLine(index, of: &scene, read: &read) }
            for index in scene.awaitingNeural() { try readSceneLine(index, of: &scene, read: &read) }
        } catch .deadlineExceeded {
            read.stats.outOfTime = true  // what was read stays; the next frames go on
        }
        defer { scene.rounds += 1 }
        read.stats.lines = scene.lines.count
        read.stats.unread = scene.lines.filter { $0.reading == nil }.count
        read.stats.awaitingSecondRead = scene.awaitingNeural().count
        read.stats.directionsUndecided = scene.awaitsVote(steep: true) || scene.awaitsVote(steep: false)
        let lines = scene.readLines()
        read.stats.carried = lines.filter { $0.seen == .carried }.map(\.read.line.box)
        read.stats.repeated = lines.filter { $0.seen == .repeated }.map(\.read.line.box)
        read.stats.totalMilliseconds = MonotonicInstant.now().milliseconds(since: read.started)
        lastRead = read.stats
        return RecognizedText(blocks: LineBlocks.blocks(of: lines.map(\.read)))
    }

    /// One read in progress: the image, how it is read, the time it has, and what it did.
    private struct FrameRead {
        let image: GrayImage
        let resolution: Int
        let symbols: Bool
        /// Milliseconds for the whole read from `started`, detection included.
        let deadline: Int
        let started: MonotonicInstant
        /// The frame is the mean of a stack still filling: clearer frames of the scene follow.
        let stackFilling: Bool
        /// What the read did; its ``DetectorRead/budgetMilliseconds`` is what it reads for
        /// (the deadline unless a step of it is set).
        var stats: DetectorRead

        init(image: GrayImage, resolution: Int, symbols: Bool, deadline: Int, started: MonotonicInstant, stackFilling: Bool,
             probeMilliseconds: Double?) {
            self.image = image
            self.resolution = resolution
            self.symbols = symbols
            self.deadline = deadline
            self.started = started
            self.stackFilling = stackFilling
            stats = DetectorRead()
            stats.budgetMilliseconds = deadline
            stats.probeMilliseconds = probeMilliseconds
        }

        /// Milliseconds left for the read (of its budget).
        /// - Throws: ``RecognitionError/deadlineExceeded(milliseconds:)`` (the frame's
        ///   deadline) when 1 ms or less is left.
        func remaining() throws(RecognitionError) -> Int {
            let left = Double(stats.budgetMilliseconds) - MonotonicInstant.now().milliseconds(since: started)
            guard left > 1 else { throw .deadlineExceeded(milliseconds: deadline) }
            return Int(left)
        }
    }

    /// One line read: its words in image pixels, their mean confidence (0: no words), and
    /// the engine that read it (`tesseract` or `neural`).
    private typealias LineReading = (words: [TextWord], confidence: Double, engine: String)

    /// The lines of one still scene and what each read, kept from frame to frame.
    private struct Scene {
        var generation: Int?
        var orientation: Int?
        /// The scene's shift when its lines were detected (they are kept at that place).
        var dx: Int
        var dy: Int
        var time: MonotonicInstant
        var lines: [SceneLine]
        /// The reading direction voted for steep and for shallow lines (nil: not yet).
        var steepFlipped: Bool?
        var shallowFlipped: Bool?
        /// A vote weighed turned reads on a frame whose stack was still filling: it is
        /// taken again on the first frame of the full stack. (A dim scene's first frame
        /// can read as garbage both ways, turned a little less so; voted upside down
        /// there, the scene read upside down for as long as it stayed: seen in tests/live,
        /// a dim 17 px scene that settled at no word right.)
        var provisionalVote = false
        /// A line read again came back empty or far less confident: detect again.
        var lost = false
        var imageWidth: Int
        var imageHeight: Int
        /// Reads of the scene so far.
        var rounds = 0
        /// What detecting the scene's lines took.
        var detectMilliseconds = 0.0
        /// The longer side the detector saw (smaller than ``DetectionSize/full``: a
        /// quick first detection, done again at full size once its lines are read).
        var detectedSide = DetectionSize.full
        /// Detected on a stack still filling: detected again on the full stack once its
        /// lines are read. (A dim scene's first frame alone showed the detector a piece of
        /// a line, "umber A7-3391" of "Serial number A7-3391", and not the line below;
        /// under load, four detections' time put the next detection 23 s later: seen in
        /// tests/live with 13 cameras on 2 busy cores.)
        var detectedOnFillingStack = false
        /// The image the lines were detected on (with a scene hint: a still scene's).
        var detectedImage: GrayImage?

        /// Whether a still scene is due to be detected again: once all its lines were
        /// read, every ``DetectorLayout/redetectSeconds`` (or four detections' time, on a
        /// machine where one takes longer), so that lines that came into view are found,
        /// and at once when the scene was detected small or on a stack still filling;
        /// never while lines are still unread (a slow machine would never finish).
        func isDue(at time: MonotonicInstant, stackFilling: Bool) -> Bool {
            lines.allSatisfy { $0.reading != nil }
                && (detectedSide < DetectionSize.full || (detectedOnFillingStack && !stackFilling)
                    || time.milliseconds(since: self.time) >= max(DetectorLayout.redetectSeconds * 1000, 4 * detectMilliseconds))
        }

        /// The order of value: lines not read yet (thickest first: large text reads
        /// surest and soonest), then the others, read longest ago first.
        func readingOrder() -> [Int] {
            let unread = lines.indices.filter { lines[$0].reading == nil }
                .sorted { lines[$0].line.quad().thickness > lines[$1].line.quad().thickness }
            let awaiting = awaitingNeural()
            let read = lines.indices.filter { lines[$0].reading != nil && !awaiting.contains($0) }
                .sorted { lines[$0].lastRound < lines[$1].lastRound }
            return unread + awaiting + read
        }

        /// Lines Tesseract read unsure that the neural recognizer has not read again yet,
        /// thickest first: read once every line has a reading (a first reading of every
        /// line is worth more than a better reading of one).
        func awaitingNeural() -> [Int] {
            lines.indices.filter { lines[$0].wantsNeural && lines[$0].reading?.engine != "neural" }
                .sorted { lines[$0].line.quad().thickness > lines[$1].line.quad().thickness }
        }

        /// Every line read in the scene so far, moved to this frame, in the detector's
        /// order, with the words that are said (``UnsureWords``), and how this frame's read
        /// saw it.
        func readLines() -> [(read: LineBlocks.ReadLine, seen: LineSeen)] {
            lines.compactMap { entry in
                guard let reading = entry.reading else { return nil }
                let said = UnsureWords.said(reading.words, engine: reading.engine)
                guard !said.isEmpty else { return nil }
                let words = said.map { $0.moved(dx: shift.dx, dy: shift.dy) }
                let box = words.dropFirst().reduce(words[0].box) { $0.union($1.box) }
                let line = LineBlocks.ReadLine(line: TextLine(box: box, confidence: reading.confidence, words: words, engine: reading.engine),
                                               quad: entry.line.moved(dx: shift.dx, dy: shift.dy).quad(flipped: entry.flipped ?? false))
                return (line, entry.lastRound != rounds ? .carried : entry.repeated ? .repeated : .read)
            }
        }

        /// This frame's offset from where the lines were detected (set per read).
        var shift = (dx: 0, dy: 0)

        /// Whether the scene has lines of that kind whose reading direction is not voted yet.
        func awaitsVote(steep: Bool) -> Bool {
            (steep ? steepFlipped : shallowFlipped) == nil && lines.contains { $0.line.isSteep == steep }
        }

        /// Forgets the reading directions voted (and a vote's readings so far), so that
        /// the next read votes afresh; the lines keep their readings until they are read
        /// in the direction voted then.
        mutating func forgetDirections() {
            steepFlipped = nil
            shallowFlipped = nil
            provisionalVote = false
            for index in lines.indices {
                lines[index].flipped = nil
                lines[index].plain = nil
                lines[index].turned = nil
            }
        }
    }

    /// How one frame's read saw a line of its scene: read it, found its pixels those of
    /// its last reading (which then stands, repeated), or did not get to it (the reading
    /// of an earlier frame, carried over).
    private enum LineSeen { case read, repeated, carried }

    /// A line of the scene: where it was detected, which way it reads, and what it read.
    private struct SceneLine {
        var line: DetectedLine
        /// Upside down along the line; nil until the direction vote decided it.
        var flipped: Bool?
        /// Its last reading, words placed where the line was detected; nil: not read yet.
        var reading: LineReading?
        /// The direction vote's readings (plain, turned), kept until it decides.
        var plain: LineReading?
        var turned: LineReading?
        /// The scene's read (``Scene/rounds``) that last read it.
        var lastRound = -1
        /// Whether that read kept ``reading`` because the line's pixels had not changed
        /// since it (a repeat, not a reading of its own).
        var repeated = false
        /// The best confidence it read with in the scene (0: nothing yet).
        var confidence = 0.0
        /// A short line, or one Tesseract read unsure (`--engine auto`): the neural
        /// recognizer reads it from now on.
        var wantsNeural = false
        /// What ``reading`` was read from: the line's crop (``DetectorLayout/look(at:in:)``)
        /// and whether symbols were read; nil: the direction vote's reading.
        var readFrom: (crop: GrayImage, symbols: Bool)?
    }

    /// The scene of this frame: the known one moved with the frame when it can be read
    /// again (see the type's comment), else one detected now.
    /// - Throws: what ``detectScene(hint:read:)`` throws.
    private func sceneToRead(hint: SceneHint?, read: inout FrameRead) throws(RecognitionError) -> Scene {
        if var scene = known, let hint, isStill(scene, hint: hint, imageWidth: read.image.width, imageHeight: read.image.height) {
            if !scene.isDue(at: read.started, stackFilling: read.stackFilling) {
                scene.shift = (hint.dx - scene.dx, hint.dy - scene.dy)
                return scene
            }
            // Due by time or for the full stack, and the image is still the one detected:
            // the detector would find the same lines.
            if scene.detectedSide >= DetectionSize.full, hint.dx == scene.dx, hint.dy == scene.dy,
               let detectedOn = scene.detectedImage, PixelChange(from: detectedOn, to: read.image)?.isNegligible == true {
                scene.time = read.started
                scene.detectedOnFillingStack = read.stackFilling
                scene.shift = (0, 0)
                read.stats.detectionKept = true
                return scene
            }
        }
        return try detectScene(hint: hint, read: &read)
    }

    /// Detects the frame's lines (too small ones left out) and keeps them at once as the
    /// known scene, nothing read yet, so that a read that runs out of time leaves them
    /// for the next frames (under load, detecting again every frame would never finish a
    /// frame: seen with 14 replayed cameras on 2 cores). The reading direction last voted
    /// carries over.
    /// - Throws: ``RecognitionError/detectorFailed(_:)``; ``RecognitionError/deadlineExceeded(milliseconds:)``
    ///   when a detection that outlasted the deadline found no line (a frame of noise:
    ///   nothing to go on with).
    private func detectScene(hint: SceneHint?, read: inout FrameRead) throws(RecognitionError) -> Scene {
        // The same still scene detected again (its timed detection) keeps what it read and
        // its reading directions; a new scene reads and votes afresh.
        let still = known.flatMap { old in
            isStill(old, hint: hint, imageWidth: read.image.width, imageHeight: read.image.height) ? old : nil
        }
        let side = hint == nil ? DetectionSize.full
            : detectionSize.side(newScene: still == nil, deadline: read.deadline, width: read.image.width, height: read.image.height)
        let detected: [DetectedLine]
        do {
            detected = try detectors.detect(read.image, waiting: hint != nil, maximumSide: side)
        } catch { throw .detectorFailed(error.description) }
        read.stats.detected = true
        read.stats.detectMilliseconds = MonotonicInstant.now().milliseconds(since: read.started)
        read.stats.detectedSide = side
        detectionSize.record(milliseconds: read.stats.detectMilliseconds, side: side, width: read.image.width, height: read.image.height)
        let lines = detected.filter { min($0.width, $0.height) >= 4 && max($0.width, $0.height) >= 6 }
        let scene = Scene(generation: hint?.generation, orientation: hint?.orientation, dx: hint?.dx ?? 0, dy: hint?.dy ?? 0,
                          time: read.started, lines: still.map { Self.sceneLines(lines, keepingFrom: $0, hint: hint) }
                              ?? lines.map { SceneLine(line: $0) },
                          steepFlipped: still?.steepFlipped, shallowFlipped: still?.shallowFlipped,
                          provisionalVote: still?.provisionalVote ?? false,
                          imageWidth: read.image.width, imageHeight: read.image.height, detectMilliseconds: read.stats.detectMilliseconds,
                          detectedSide: side, detectedOnFillingStack: read.stackFilling,
                          detectedImage: hint == nil ? nil : read.image)
        // The network cannot be stopped midway: a detection that outlasted the deadline
        // ends the read here, as a late Tesseract read does, when it found no lines.
        if lines.isEmpty, read.stats.detectMilliseconds > Double(read.deadline) {
            known = scene
            throw .deadlineExceeded(milliseconds: read.deadline)
        }
        return scene
    }

    /// Times ``DetectionSize/probe`` now, at start-up, when a camera's first scene with
    /// `deadline` may want it (a frame larger than ``DetectionSize/quick``): the first
    /// scene then does not wait for it, and the network's first run (its buffers
    /// allocated) is part of loading it. At a sixth of a core the probe took 0.3 s after
    /// the camera streamed (2026-12-04).
    /// - Throws: ``RecognitionError/detectorFailed(_:)``.
    package func timeProbe(deadline: Int) throws(RecognitionError) {
        guard detectionSize.wantsProbe(deadline: deadline, width: DetectionSize.full * 2, height: DetectionSize.full * 2) else { return }
        do { _ = try detectors.probeMilliseconds() } catch { throw .detectorFailed(error.description) }
    }

    /// Times ``DetectionSize/probe`` before a new scene is detected, when nothing was
    /// timed yet and it can change the size the scene is detected at (the time taken at
    /// start-up, ``timeProbe(deadline:)``, or by another recognizer of the camera, when
    /// there is one: ``DetectorPool/probeMilliseconds()``). Outside the frame's
    /// deadline: at a third of a core the probe takes about 0.6 s, which counted in the
    /// first frame's 3 s put two turned pages' first half-text at 6.1–6.2 s (3.1–3.6 s
    /// before the probe; tests/slowcpu, 2026-12-04).
    /// - Returns: the probe's milliseconds, nil when none was timed.
    private func probeBeforeFirstScene(of image: GrayImage, deadline: Int, hint: SceneHint?) throws(RecognitionError) -> Double? {
        guard let hint, known.map({ !isStill($0, hint: hint, imageWidth: image.width, imageHeight: image.height) }) ?? true,
              detectionSize.wantsProbe(deadline: deadline, width: image.width, height: image.height) else { return nil }
        let milliseconds: Double
        do { milliseconds = try detectors.probeMilliseconds() } catch { throw .detectorFailed(error.description) }
        detectionSize.recordProbe(milliseconds: milliseconds, width: image.width, height: image.height)
        return milliseconds
    }

    /// Whether `old` is the scene `hint` shows, read the same way and not lost.
    private func isStill(_ old: Scene, hint: SceneHint?, imageWidth: Int, imageHeight: Int) -> Bool {
        guard let hint else { return false }
        return old.generation == hint.generation && old.orientation == hint.orientation && !old.lost
            && old.imageWidth == imageWidth && old.imageHeight == imageHeight
    }

    /// The scene's lines for lines just detected again in the still scene `old`: a line
    /// found where a known one was keeps what it read, so the text does not start over;
    /// others start unread.
    private static func sceneLines(_ lines: [DetectedLine], keepingFrom old: Scene, hint: SceneHint?) -> [SceneLine] {
        let dx = (hint?.dx ?? old.dx) - old.dx, dy = (hint?.dy ?? old.dy) - old.dy
        return lines.map { line in
            let thickness = min(line.width, line.height)
            guard let match = old.lines.first(where: { known in
                let moved = known.line.moved(dx: dx, dy: dy)
                return abs(moved.centerX - line.centerX) < thickness / 2 && abs(moved.centerY - line.centerY) < thickness / 2
                    && abs(max(moved.width, moved.height) - max(line.width, line.height)) < 0.2 * max(line.width, line.height)
            }), let reading = match.reading else { return SceneLine(line: line) }
            var kept = match
            kept.line = line
            // From where the known lines were detected to where these were (this frame).
            kept.reading = (reading.words.map { $0.moved(dx: dx, dy: dy) }, reading.confidence, reading.engine)
            return kept
        }
    }

    /// Reads `line` (`flipped`: turned half a turn) with the engine ``engineChoice`` and
    /// ``LinePolicy`` give it: with `auto`, `neuralAgain` (a short line, or one Tesseract
    /// read unsure, once read: ``SceneLine/wantsNeural``) by the neural recognizer, others
    /// by Tesseract. `tesseractOnly`: the direction vote's reads,
    /// whose thresholds are Tesseract's (the neural recognizer reads upside-down text as
    /// confident garbage); the lines are read again by the policy after the vote.
    /// - Throws: ``RecognitionError/deadlineExceeded(milliseconds:)`` with the frame's
    ///   deadline when the line could not be read in the time left.
    private func readLine(_ line: DetectedLine, flipped: Bool, tesseractOnly: Bool = false, neuralAgain: Bool = false,
                          look: LineLook? = nil, read: inout FrameRead) throws(RecognitionError) -> LineReading {
        let quad = line.grown(across: grow).quad(flipped: flipped)
        if let neural, engine(tesseractOnly: tesseractOnly, neuralAgain: neuralAgain) == "neural" {
            return try readWithNeural(quad, neural, read: &read)
        }
        return try readWithTesseract(look ?? self.look(at: quad, in: read.image), read: &read)
    }

    /// The engine that reads a line (`tesseract` or `neural`; see ``readLine(_:flipped:tesseractOnly:neuralAgain:look:read:)``).
    private func engine(tesseractOnly: Bool, neuralAgain: Bool) -> String {
        guard neural != nil, !tesseractOnly else { return "tesseract" }
        switch engineChoice {
        case .tesseract: return "tesseract"
        case .neural, .segments: return "neural"
        case .auto: return neuralAgain ? "neural" : "tesseract"
        }
    }

    /// A line cut out of the image as Tesseract reads it: straightened, scaled to
    /// ``targetThickness``, padded.
    private typealias LineLook = (crop: LineCrop, pixels: GrayImage)

    /// `quad` cut out of `image` as Tesseract reads it.
    private func look(at quad: LineQuad, in image: GrayImage) -> LineLook {
        let crop = LineCrop(quad: quad, scale: LineCrop.scale(forThickness: quad.thickness, target: targetThickness),
                            padding: padding)
        return (crop, crop.image(from: image))
    }

    /// Reads `quad` with the neural line recognizer (its words mapped back to the image
    /// by the recognizer itself); it cannot be stopped midway, so it starts only with time
    /// left (or as the frame's first line).
    private func readWithNeural(_ quad: LineQuad, _ neural: NeuralLineEngine, read: inout FrameRead) throws(RecognitionError) -> LineReading {
        if read.stats.linesRead > 0 { _ = try read.remaining() }
        let line: TextLine
        let quad = engineChoice == .segments
            ? LinePolicy.segmentsLine(quad)
            : quad.lengthened(by: LinePolicy.neuralLengthening * quad.thickness)
        do { line = try neural.read(quad, of: read.image, symbols: read.symbols) } catch { throw .detectorFailed(error.description) }
        read.stats.linesRead += 1
        read.stats.neuralReads += 1
        let words = line.words.filter { $0.box.width > 0 && $0.box.height > 0 }.map { word in
            var word = word
            word.language = word.language ?? neuralLanguage
            return word
        }
        return (words, words.isEmpty ? 0 : line.confidence, "neural")
    }

    /// Reads a line cut out of the image (`look`) with Tesseract as one line, and maps its
    /// words back to the image, dropping the least confident.
    private func readWithTesseract(_ look: LineLook, read: inout FrameRead) throws(RecognitionError) -> LineReading {
        let image = read.image, (crop, pixels) = look
        let text: RecognizedText
        do {
            let budget = read.stats.linesRead == 0 ? max(read.deadline, Self.firstLineMilliseconds) : try read.remaining()
            text = try engine.recognize(pixels, resolution: read.resolution, deadline: budget, symbols: read.symbols)
        } catch .deadlineExceeded {
            throw .deadlineExceeded(milliseconds: read.deadline)  // the frame's deadline, not the line's share of it
        }
        read.stats.linesRead += 1
        let words = text.words.compactMap { word -> TextWord? in
            var word = word
            word.box = crop.imageBox(ofCrop: word.box, imageWidth: image.width, imageHeight: image.height)
            word.symbols = word.symbols.map { symbol in
                var symbol = symbol
                symbol.box = crop.imageBox(ofCrop: symbol.box, imageWidth: image.width, imageHeight: image.height)
                return symbol
            }
            return word.box.width > 0 && word.box.height > 0 && word.confidence >= minimumWordConfidence ? word : nil
        }
        let confidence = words.isEmpty ? 0 : words.map(\.confidence).reduce(0, +) / Double(words.count)
        return (words, confidence, "tesseract")
    }

    /// Reads line `index` of `scene` in its direction and keeps the reading; a line whose
    /// pixels are still those its reading (by the engine that would read it now) came
    /// from keeps it, as read again now.
    private func readSceneLine(_ index: Int, of scene: inout Scene, read: inout FrameRead) throws(RecognitionError) {
        let entry = scene.lines[index]
        let flipped = entry.flipped ?? (entry.line.isSteep ? scene.steepFlipped : scene.shallowFlipped) ?? false
        let shift = scene.shift
        let look = look(at: entry.line.moved(dx: shift.dx, dy: shift.dy).grown(across: grow).quad(flipped: flipped), in: read.image)
        if let reading = entry.reading, let from = entry.readFrom, from.symbols == read.symbols,
           reading.engine == engine(tesseractOnly: false, neuralAgain: entry.wantsNeural),
           PixelChange(from: from.crop, to: look.pixels)?.isNegligible == true {
            scene.lines[index].lastRound = scene.rounds
            scene.lines[index].repeated = true
            read.stats.unchangedLines += 1
            return
        }
        let reading = try readLine(index, of: scene, flipped: flipped, neuralAgain: entry.wantsNeural, look: look, read: &read)
        keep(reading, flipped: flipped, at: index, of: &scene)
        scene.lines[index].readFrom = (look.pixels, read.symbols)
        // A short line, or Tesseract unsure: the neural recognizer reads it again once every
        // line has a reading (Tesseract's first reading costs a fifth of the neural one's).
        if engineChoice == .auto, neural != nil, reading.engine == "tesseract",
           LinePolicy.rereads(reading.words, confidence: reading.confidence)
            || LinePolicy.neuralFirst(entry.line.quad(flipped: flipped)) {
            scene.lines[index].wantsNeural = true
        }
    }

    /// Reads line `index` of `scene` where it is in this frame; the words come back placed
    /// where the line was detected (the scene's reference).
    private func readLine(_ index: Int, of scene: Scene, flipped: Bool, tesseractOnly: Bool = false, neuralAgain: Bool = false,
                          look: LineLook? = nil, read: inout FrameRead) throws(RecognitionError) -> LineReading {
        let shift = scene.shift
        let reading = try readLine(scene.lines[index].line.moved(dx: shift.dx, dy: shift.dy), flipped: flipped,
                                   tesseractOnly: tesseractOnly, neuralAgain: neuralAgain, look: look, read: &read)
        return (reading.words.map { $0.moved(dx: -shift.dx, dy: -shift.dy) }, reading.confidence, reading.engine)
    }

    /// Keeps `reading` (placed in the scene's reference) as line `index`'s reading, and
    /// notes a line that lost its text.
    private func keep(_ reading: LineReading, flipped: Bool, at index: Int, of scene: inout Scene) {
        // The other engine's confidences are not comparable: a line the neural recognizer
        // now reads starts its best confidence afresh.
        if let last = scene.lines[index].reading, last.engine != reading.engine { scene.lines[index].confidence = 0 }
        // Read again empty or at less than half its best confidence: the scene changed under it.
        if scene.lines[index].confidence > 0, reading.confidence < scene.lines[index].confidence * 0.5 { scene.lost = true }
        scene.lines[index].flipped = flipped
        scene.lines[index].reading = reading
        scene.lines[index].readFrom = nil
        scene.lines[index].lastRound = scene.rounds
        scene.lines[index].repeated = false
        scene.lines[index].confidence = max(scene.lines[index].confidence, reading.confidence)
    }

    /// Votes the reading direction of steep lines (a page turned a quarter either way)
    /// and of shallow ones (upside-down text: a camera turned half a turn) while undecided.
    private func decideDirections(of scene: inout Scene, read: inout FrameRead) throws(RecognitionError) {
        // The segments engine's displays are read upright, as they come: the vote reads
        // with Tesseract, which reads no seven-segment digits, and keeps its readings.
        if engineChoice == .segments {
            if scene.awaitsVote(steep: true) { scene.steepFlipped = false }
            if scene.awaitsVote(steep: false) { scene.shallowFlipped = false }
            return
        }
        if scene.awaitsVote(steep: true) { scene.steepFlipped = try voteFlipped(steep: true, scene: &scene, read: &read) }
        if scene.awaitsVote(steep: false) { scene.shallowFlipped = try voteFlipped(steep: false, scene: &scene, read: &read) }
    }

    /// The reading direction of one kind of line, from the longest few read both ways:
    /// steep lines always, shallow lines when their plain reads are poor. The direction
    /// with more confidence-weighted characters wins for all lines of that kind; the
    /// samples keep their readings in it. Readings are kept as they come, so a vote the
    /// deadline cut short goes on where it stopped with the next frame.
    private func voteFlipped(steep: Bool, scene: inout Scene, read: inout FrameRead) throws(RecognitionError) -> Bool {
        let samples = scene.lines.indices.filter { scene.lines[$0].line.isSteep == steep }
            .sorted { scene.lines[$0].line.quad().length > scene.lines[$1].line.quad().length }.prefix(Self.directionSamples)
        // A direction's evidence: its reads' mean confidence (a read without words
        // counting 0), and their characters weighted by confidence (a short garbage
        // read, "19" at 0.9, is less than a long line read at 0.7).
        func evidence(_ readings: [LineReading]) -> (confidence: Double, characters: Double) {
            (readings.reduce(0) { $0 + ($1.words.isEmpty ? 0 : $1.confidence) } / Double(samples.count),
             readings.reduce(0) { total, reading in total + reading.words.reduce(0) { $0 + $1.confidence * Double($1.text.count) } })
        }
        for index in samples where scene.lines[index].plain == nil {
            let reading = try readLine(index, of: scene, flipped: false, tesseractOnly: true, read: &read)
            scene.lines[index].plain = reading
            // Shallow text is upright far more often than not: its plain reading shows at
            // once (a read that runs out of time publishes it), until the vote says otherwise.
            if !steep { keep(reading, flipped: false, at: index, of: &scene) }
        }
        let plain = evidence(samples.compactMap { scene.lines[$0].plain })
        var flipped = false
        if steep || plain.confidence < Self.upsideDownCheckBelow {
            if read.stackFilling { scene.provisionalVote = true }
            for index in samples where scene.lines[index].turned == nil {
                scene.lines[index].turned = try readLine(index, of: scene, flipped: true, tesseractOnly: true, read: &read)
            }
            let turned = evidence(samples.compactMap { scene.lines[$0].turned })
            // Upside down only when the turned reads are good where the plain ones were
            // poor: a poor line (a plate, a blurred sign) can read as garbage either way.
            flipped = turned.characters > plain.characters && (steep || turned.confidence >= Self.upsideDownCheckBelow)
        }
        for index in samples {
            if let reading = flipped ? scene.lines[index].turned : scene.lines[index].plain {
                keep(reading, flipped: flipped, at: index, of: &scene)
            }
            scene.lines[index].plain = nil
            scene.lines[index].turned = nil
        }
        return flipped
    }
}

/// What one read of the detector layout did.
public struct DetectorRead: Equatable, Sendable {
    /// Whether lines were detected (else the known lines were read again).
    public var detected = false
    /// Whether a detection was due but the image was still the one the lines were
    /// detected on: they were kept (not ``detected``).
    public var detectionKept = false
    /// Milliseconds in the detector.
    public var detectMilliseconds = 0.0
    /// Milliseconds of the probe timed for this frame's read (``DetectionSize/probe``;
    /// outside its deadline, before it or at start-up), when one was.
    public var probeMilliseconds: Double?
    /// The longer side the detector shrank the image to (when ``detected``).
    public var detectedSide = 0
    /// Milliseconds for the whole read.
    public var totalMilliseconds = 0.0
    /// Milliseconds the frame read for: the deadline, or a step of it when the frame went
    /// on with lines an earlier frame of the scene left unread.
    public var budgetMilliseconds = 0
    /// Lines in the frame.
    public var lines = 0
    /// Single-line reads (lines, plus the direction vote's second readings and the
    /// neural recognizer's re-reads), by either engine.
    public var linesRead = 0
    /// Of those, the neural line recognizer's.
    public var neuralReads = 0
    /// Lines whose pixels were still those of their last reading: it stands (not read
    /// again, not in ``linesRead``).
    public var unchangedLines = 0
    /// Lines of the scene not read yet: the read ran out of time before them (the next
    /// frames of the scene go on with them).
    public var unread = 0
    /// Lines read by Tesseract that the neural line recognizer is still to read again
    /// (short lines, or read unsure); not counted in ``unread``.
    public var awaitingSecondRead = 0
    /// Whether the reading direction of some lines is still being voted (the vote's
    /// reads go on with the next frame).
    public var directionsUndecided = false
    /// Whether the deadline ended the read before every line was read in it.
    public var outOfTime = false
    /// Boxes of the lines in the text that an earlier frame of the scene read.
    public var carried: [PixelBox] = []
    /// Boxes of the lines in the text whose pixels were those of their last reading
    /// (``unchangedLines``): that reading, repeated.
    public var repeated: [PixelBox] = []

    public init() {}
}
