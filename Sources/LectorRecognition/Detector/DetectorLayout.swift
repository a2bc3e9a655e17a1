import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem

/// The detector layout: text lines found by ``TextLineDetector``, each cut out and
/// straightened (``LineCrop``), read by Tesseract as a single line (page segmentation
/// 7), its words mapped back to the image, the lines grouped into blocks
/// (``LineBlocks``).
///
/// Detection is the expensive part (a network on the whole frame), so on a still scene
/// the lines found are kept and only read again: lines are detected again when the
/// scene changes (a new stack generation, or no scene hint at all), when a line that
/// read before comes back empty or far less confident (a lost track), and at least
/// every ``redetectSeconds``.
///
/// Not thread-safe, except ``cancel()`` and ``resume()``: one per recognizer.
final class DetectorLayout {
    /// Lines are detected again at least this often on a still scene.
    static let redetectSeconds = 4.0
    /// Crop height Tesseract reads best at (image pixels of a line box, after scaling;
    /// 36 and 64 measured no better).
    let targetThickness = 48.0
    /// Lines whose reading direction is voted (both directions read) per detection.
    static let directionSamples = 3
    /// Shallow lines are read upside down too when their plain reads score below this
    /// (mean confidence, a read without words scoring 0), and taken upside down when the
    /// turned reads score at least this: upright text reads far above it, upside-down
    /// text far below.
    static let upsideDownCheckBelow = 0.6
    /// OpenCV's worker threads for the detector (process-wide).
    static let openCVThreads = 1

    /// Shared with the camera's other recognizers.
    let detectors: DetectorPool
    private let engine: IsolatedRecognizer
    /// Lines of the scene last detected.
    private var known: Known?
    /// The last read's statistics (benchmarks, FRAME's recognize time is the loop's).
    private(set) var lastRead = DetectorRead()

    private struct Known {
        var generation: Int?
        var orientation: Int?
        var dx: Int
        var dy: Int
        var time: MonotonicInstant
        /// Each line and its confidence when it was last read (0: it read nothing).
        var lines: [KnownLine]
        var lost = false
        var imageWidth: Int
        var imageHeight: Int
    }

    init(detectors: DetectorPool, language: String, dataPath: String?) throws(RecognitionError) {
        self.detectors = detectors
        engine = try IsolatedRecognizer(language: language, dataPath: dataPath, pageSegmentation: 7)
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

    func cancel() { engine.cancel() }
    func resume() { engine.resume() }
    var lastTimings: RecognitionTimings { engine.lastTimings }

    /// Forgets the lines known (the next read detects).
    func forget() { known = nil }

    /// Reads `image`: detects lines (or re-uses the known ones, see the type's comment),
    /// decides their reading direction, reads each in turn, remembers them for the next
    /// frames, and builds the tree with boxes in `image`'s pixels.
    /// - Parameters:
    ///   - deadline: milliseconds for the whole read, detection included.
    ///   - scene: the frame's scene from the live-text stack; nil: detect every frame.
    func recognize(_ image: GrayImage, resolution: Int, deadline: Int, symbols: Bool,
                   scene: SceneHint?) throws(RecognitionError) -> RecognizedText {
        var read = FrameRead(image: image, resolution: resolution, symbols: symbols, deadline: deadline, started: .now())
        let lines = try linesToRead(scene: scene, read: &read)
        var readings: [Int: LineReading] = [:]
        let steepFlipped = try voteFlipped(steep: true, lines: lines, readings: &readings, read: &read)
        let shallowFlipped = try voteFlipped(steep: false, lines: lines, readings: &readings, read: &read)
        let ordered = Self.inReadingOrder(lines, steepFlipped: steepFlipped, shallowFlipped: shallowFlipped)
        let (readLines, memory, lost) = try readAll(ordered, readings: readings, read: &read)
        remember(memory, lost: lost, scene: scene, read: read)
        read.stats.lines = lines.count
        read.stats.totalMilliseconds = MonotonicInstant.now().milliseconds(since: read.started)
        lastRead = read.stats
        return RecognizedText(blocks: LineBlocks.blocks(of: readLines))
    }

    /// One read in progress: the image, how it is read, the time it has, and what it did.
    private struct FrameRead {
        let image: GrayImage
        let resolution: Int
        let symbols: Bool
        /// Milliseconds for the whole read from `started`, detection included.
        let deadline: Int
        let started: MonotonicInstant
        var stats = DetectorRead()

        /// Milliseconds left for the read.
        /// - Throws: ``RecognitionError/deadlineExceeded(milliseconds:)`` when 1 ms or less is left.
        func remaining() throws(RecognitionError) -> Int {
            let left = Double(deadline) - MonotonicInstant.now().milliseconds(since: started)
            guard left > 1 else { throw .deadlineExceeded(milliseconds: deadline) }
            return Int(left)
        }
    }

    /// A line to read and its direction (`flipped`: upside down along the line); nil
    /// while the direction vote has not decided it.
    private typealias LineToRead = (line: DetectedLine, flipped: Bool?)
    /// One line read: its words in image pixels and their mean confidence (0: no words).
    private typealias LineReading = (words: [TextWord], confidence: Double)
    /// A line as remembered for the next frames: its direction and the confidence it read with.
    private typealias KnownLine = (line: DetectedLine, flipped: Bool, confidence: Double)

    /// The lines of this frame: the known ones moved with the scene when they can be
    /// read again (see the type's comment), else lines detected now.
    private func linesToRead(scene: SceneHint?, read: inout FrameRead) throws(RecognitionError) -> [LineToRead] {
        if let known, let scene, known.generation == scene.generation, known.orientation == scene.orientation, !known.lost,
           known.imageWidth == read.image.width, known.imageHeight == read.image.height,
           read.started.milliseconds(since: known.time) < Self.redetectSeconds * 1000 {
            let dx = Double(scene.dx - known.dx), dy = Double(scene.dy - known.dy)
            return known.lines.map { entry in
                var moved = entry.line
                moved.centerX += dx
                moved.centerY += dy
                return (moved, entry.flipped)
            }
        }
        return try detectLines(scene: scene, read: &read)
    }

    /// Detects the frame's lines (too small ones left out) and keeps them at once as the
    /// known lines, their direction undecided.
    /// - Throws: ``RecognitionError/detectorFailed(_:)``; ``RecognitionError/deadlineExceeded(milliseconds:)``
    ///   when detection outlasted the deadline.
    private func detectLines(scene: SceneHint?, read: inout FrameRead) throws(RecognitionError) -> [LineToRead] {
        let detected: [DetectedLine]
        do { detected = try detectors.detect(read.image, waiting: scene != nil) } catch { throw .detectorFailed(error.description) }
        read.stats.detected = true
        read.stats.detectMilliseconds = MonotonicInstant.now().milliseconds(since: read.started)
        let lines: [LineToRead] = detected.filter { min($0.width, $0.height) >= 4 && max($0.width, $0.height) >= 6 }.map { ($0, nil) }
        // Kept at once: a read that runs out of time below still leaves the lines for
        // the next frame to read (under load, detecting again every frame would
        // never finish a frame: seen with 14 replayed cameras on 2 cores).
        known = Known(generation: scene?.generation, orientation: scene?.orientation, dx: scene?.dx ?? 0, dy: scene?.dy ?? 0,
                      time: read.started,
                      lines: lines.map { entry in
                          (entry.line, known?.lines.first(where: { $0.line.isSteep == entry.line.isSteep })?.flipped == true, 0)
                      },
                      lost: false, imageWidth: read.image.width, imageHeight: read.image.height)
        // The network cannot be stopped midway; a detection that outlasted the
        // deadline ends the read here, as a late Tesseract read does, whether or not
        // it found lines (a frame of noise finds none).
        if read.stats.detectMilliseconds > Double(read.deadline) { throw .deadlineExceeded(milliseconds: read.deadline) }
        return lines
    }

    /// Cuts `line` out of the image, straightened (`flipped`: turned half a turn), reads
    /// it as one line, and maps its words back to the image, dropping the least confident.
    private func readLine(_ line: DetectedLine, flipped: Bool, read: inout FrameRead) throws(RecognitionError) -> LineReading {
        let image = read.image
        let quad = line.grown(across: grow).quad(flipped: flipped)
        let crop = LineCrop(quad: quad, scale: LineCrop.scale(forThickness: quad.thickness, target: targetThickness),
                            padding: padding)
        let pixels = crop.image(from: image)
        let text = try engine.recognize(pixels, resolution: read.resolution, deadline: try read.remaining(), symbols: read.symbols)
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
        return (words, confidence)
    }

    /// The reading direction of the undecided lines of one kind, once per detection, from
    /// the longest few read both ways: of steep lines (a page turned a quarter either
    /// way) always, of shallow lines (upside-down text: a camera turned half a turn) when
    /// their plain reads are poor. The direction with more confidence-weighted characters
    /// wins for all lines of that kind.
    /// - Parameter readings: the sample lines' readings in the winning direction, by index
    ///   (they are not read again).
    /// - Returns: whether lines of that kind read flipped.
    private func voteFlipped(steep: Bool, lines: [LineToRead], readings: inout [Int: LineReading],
                             read: inout FrameRead) throws(RecognitionError) -> Bool {
        let undecided = lines.indices.filter { lines[$0].flipped == nil && lines[$0].line.isSteep == steep }
        guard !undecided.isEmpty else { return false }
        let samples = undecided.sorted { lines[$0].line.quad().length > lines[$1].line.quad().length }.prefix(Self.directionSamples)
        // A direction's evidence: its reads' mean confidence (a read without words
        // counting 0), and their characters weighted by confidence (a short garbage
        // read, "19" at 0.9, is less than a long line read at 0.7).
        var plain = (confidence: 0.0, characters: 0.0), turned = plain
        func add(_ reading: LineReading, to total: inout (confidence: Double, characters: Double)) {
            total.confidence += reading.words.isEmpty ? 0 : reading.confidence / Double(samples.count)
            total.characters += reading.words.reduce(0) { $0 + $1.confidence * Double($1.text.count) }
        }
        for index in samples {
            let reading = try readLine(lines[index].line, flipped: false, read: &read)
            readings[index] = reading
            add(reading, to: &plain)
        }
        if !steep && plain.confidence >= Self.upsideDownCheckBelow { return false }
        var turnedReads: [Int: LineReading] = [:]
        for index in samples {
            let reading = try readLine(lines[index].line, flipped: true, read: &read)
            turnedReads[index] = reading
            add(reading, to: &turned)
        }
        // Upside down only when the turned reads are good where the plain ones were
        // poor: a poor line (a plate, a blurred sign) can read as garbage either way.
        guard turned.characters > plain.characters, steep || turned.confidence >= Self.upsideDownCheckBelow else { return false }
        for (index, reading) in turnedReads { readings[index] = reading }
        return true
    }

    /// The lines in the order they are read (the detector's), each with its direction:
    /// its own when known, else its kind's as voted.
    private static func inReadingOrder(_ lines: [LineToRead], steepFlipped: Bool,
                                       shallowFlipped: Bool) -> [(line: DetectedLine, flipped: Bool)] {
        lines.map { entry in (entry.line, entry.flipped ?? (entry.line.isSteep ? steepFlipped : shallowFlipped)) }
    }

    /// Reads the lines in order (those the vote read already are not read again) until
    /// the last, or until the deadline throws.
    /// - Returns: the lines that read words, with their boxes; every line as it is to be
    ///   remembered; and whether a known line was lost (read empty or at less than half
    ///   its confidence: the scene changed under it).
    private func readAll(_ lines: [(line: DetectedLine, flipped: Bool)], readings: [Int: LineReading], read: inout FrameRead)
        throws(RecognitionError) -> (lines: [LineBlocks.ReadLine], memory: [KnownLine], lost: Bool) {
        var readLines: [LineBlocks.ReadLine] = []
        var memory: [KnownLine] = []
        var lost = false
        for (index, entry) in lines.enumerated() {
            let reading: LineReading
            if let done = readings[index] { reading = done } else { reading = try readLine(entry.line, flipped: entry.flipped, read: &read) }
            if read.stats.detected == false, let previous = known?.lines[index].confidence, previous > 0,
               reading.confidence < previous * 0.5 {
                lost = true
            }
            memory.append((entry.line, entry.flipped, reading.confidence))
            if !reading.words.isEmpty {
                readLines.append(LineBlocks.ReadLine(line: TextLine(box: reading.words.dropFirst().reduce(reading.words[0].box) { $0.union($1.box) },
                                                                    confidence: reading.confidence, words: reading.words),
                                                     quad: entry.line.quad(flipped: entry.flipped)))
            }
        }
        return (readLines, memory, lost)
    }

    /// Remembers the lines read for the next frames: all of them after a detection; after
    /// a re-read, whether one was lost and each line's better confidence.
    private func remember(_ memory: [KnownLine], lost: Bool, scene: SceneHint?, read: FrameRead) {
        if read.stats.detected {
            known = Known(generation: scene?.generation, orientation: scene?.orientation, dx: scene?.dx ?? 0, dy: scene?.dy ?? 0,
                          time: read.started, lines: memory, lost: false, imageWidth: read.image.width, imageHeight: read.image.height)
        } else if var kept = known {
            kept.lost = lost
            // Keep the confidence a line had when detected, unless it reads better now.
            for index in kept.lines.indices where index < memory.count {
                kept.lines[index].confidence = max(kept.lines[index].confidence, memory[index].confidence)
            }
            known = kept
        }
    }
}

/// What one read of the detector layout did.
public struct DetectorRead: Equatable, Sendable {
    /// Whether lines were detected (else the known lines were read again).
    public var detected = false
    /// Milliseconds in the detector.
    public var detectMilliseconds = 0.0
    /// Milliseconds for the whole read.
    public var totalMilliseconds = 0.0
    /// Lines in the frame.
    public var lines = 0
    /// Tesseract single-line reads (lines, plus the direction vote's second readings).
    public var linesRead = 0

    public init() {}
}
