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
        var lines: [(line: DetectedLine, flipped: Bool, confidence: Double)]
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
    /// reads each, builds the tree with boxes in `image`'s pixels.
    /// - Parameters:
    ///   - deadline: milliseconds for the whole read, detection included.
    ///   - scene: the frame's scene from the live-text stack; nil: detect every frame.
    func recognize(_ image: GrayImage, resolution: Int, deadline: Int, symbols: Bool,
                   scene: SceneHint?) throws(RecognitionError) -> RecognizedText {
        let started = MonotonicInstant.now()
        var read = DetectorRead()
        var lines: [(line: DetectedLine, flipped: Bool?)]
        if let known, let scene, known.generation == scene.generation, known.orientation == scene.orientation, !known.lost,
           known.imageWidth == image.width, known.imageHeight == image.height,
           started.milliseconds(since: known.time) < Self.redetectSeconds * 1000 {
            let dx = Double(scene.dx - known.dx), dy = Double(scene.dy - known.dy)
            lines = known.lines.map { entry in
                var moved = entry.line
                moved.centerX += dx
                moved.centerY += dy
                return (moved, entry.flipped)
            }
        } else {
            let detected: [DetectedLine]
            do { detected = try detectors.detect(image, waiting: scene != nil) } catch { throw .detectorFailed(error.description) }
            read.detected = true
            read.detectMilliseconds = MonotonicInstant.now().milliseconds(since: started)
            lines = detected.filter { min($0.width, $0.height) >= 4 && max($0.width, $0.height) >= 6 }.map { ($0, nil) }
            // Kept at once: a read that runs out of time below still leaves the lines for
            // the next frame to read (under load, detecting again every frame would
            // never finish a frame: seen with 14 replayed cameras on 2 cores).
            known = Known(generation: scene?.generation, orientation: scene?.orientation, dx: scene?.dx ?? 0, dy: scene?.dy ?? 0, time: started,
                          lines: lines.map { entry in
                              (entry.line, known?.lines.first(where: { $0.line.isSteep == entry.line.isSteep })?.flipped == true, 0)
                          },
                          lost: false, imageWidth: image.width, imageHeight: image.height)
            // The network cannot be stopped midway; a detection that outlasted the
            // deadline ends the read here, as a late Tesseract read does, whether or not
            // it found lines (a frame of noise finds none).
            if read.detectMilliseconds > Double(deadline) { throw .deadlineExceeded(milliseconds: deadline) }
        }

        func remaining() throws(RecognitionError) -> Int {
            let left = Double(deadline) - MonotonicInstant.now().milliseconds(since: started)
            guard left > 1 else { throw .deadlineExceeded(milliseconds: deadline) }
            return Int(left)
        }
        func readLine(_ line: DetectedLine, flipped: Bool) throws(RecognitionError) -> (words: [TextWord], confidence: Double) {
            let quad = line.grown(across: grow).quad(flipped: flipped)
            let crop = LineCrop(quad: quad, scale: LineCrop.scale(forThickness: quad.thickness, target: targetThickness),
                                padding: padding)
            let pixels = crop.image(from: image)
            let text = try engine.recognize(pixels, resolution: resolution, deadline: try remaining(), symbols: symbols)
            read.linesRead += 1
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

        // The reading direction, once per detection, from the longest few lines read both
        // ways: of steep lines (a page turned a quarter either way) always, of shallow
        // lines (upside-down text: a camera turned half a turn) when their plain reads are
        // poor. The direction with more confidence-weighted characters wins for all lines
        // of that kind.
        var results: [Int: (words: [TextWord], confidence: Double)] = [:]
        func voteFlipped(steep: Bool) throws(RecognitionError) -> Bool {
            let undecided = lines.indices.filter { lines[$0].flipped == nil && lines[$0].line.isSteep == steep }
            guard !undecided.isEmpty else { return false }
            let samples = undecided.sorted { lines[$0].line.quad().length > lines[$1].line.quad().length }.prefix(Self.directionSamples)
            // A direction's evidence: its reads' mean confidence (a read without words
            // counting 0), and their characters weighted by confidence (a short garbage
            // read, "19" at 0.9, is less than a long line read at 0.7).
            var plain = (confidence: 0.0, characters: 0.0), turned = plain
            func add(_ reading: (words: [TextWord], confidence: Double), to total: inout (confidence: Double, characters: Double)) {
                total.confidence += reading.words.isEmpty ? 0 : reading.confidence / Double(samples.count)
                total.characters += reading.words.reduce(0) { $0 + $1.confidence * Double($1.text.count) }
            }
            for index in samples {
                let reading = try readLine(lines[index].line, flipped: false)
                results[index] = reading
                add(reading, to: &plain)
            }
            if !steep && plain.confidence >= Self.upsideDownCheckBelow { return false }
            var turnedReads: [Int: (words: [TextWord], confidence: Double)] = [:]
            for index in samples {
                let reading = try readLine(lines[index].line, flipped: true)
                turnedReads[index] = reading
                add(reading, to: &turned)
            }
            // Upside down only when the turned reads are good where the plain ones were
            // poor: a poor line (a plate, a blurred sign) can read as garbage either way.
            guard turned.characters > plain.characters, steep || turned.confidence >= Self.upsideDownCheckBelow else { return false }
            for (index, reading) in turnedReads { results[index] = reading }
            return true
        }
        let steepFlipped = try voteFlipped(steep: true)
        let shallowFlipped = try voteFlipped(steep: false)
        var readLines: [LineBlocks.ReadLine] = []
        var memory: [(line: DetectedLine, flipped: Bool, confidence: Double)] = []
        var lost = false
        for index in lines.indices {
            let flipped = lines[index].flipped ?? (lines[index].line.isSteep ? steepFlipped : shallowFlipped)
            let reading: (words: [TextWord], confidence: Double)
            if let done = results[index] { reading = done } else { reading = try readLine(lines[index].line, flipped: flipped) }
            if read.detected == false, let previous = known?.lines[index].confidence, previous > 0,
               reading.confidence < previous * 0.5 {
                lost = true
            }
            memory.append((lines[index].line, flipped, reading.confidence))
            if !reading.words.isEmpty {
                readLines.append(LineBlocks.ReadLine(line: TextLine(box: reading.words.dropFirst().reduce(reading.words[0].box) { $0.union($1.box) },
                                                                    confidence: reading.confidence, words: reading.words),
                                                     quad: lines[index].line.quad(flipped: flipped)))
            }
        }
        if read.detected {
            known = Known(generation: scene?.generation, orientation: scene?.orientation, dx: scene?.dx ?? 0, dy: scene?.dy ?? 0, time: started,
                          lines: memory, lost: false, imageWidth: image.width, imageHeight: image.height)
        } else if var kept = known {
            kept.lost = lost
            // Keep the confidence a line had when detected, unless it reads better now.
            for index in kept.lines.indices where index < memory.count {
                kept.lines[index].confidence = max(kept.lines[index].confidence, memory[index].confidence)
            }
            known = kept
        }
        read.lines = lines.count
        read.totalMilliseconds = MonotonicInstant.now().milliseconds(since: started)
        lastRead = read
        return RecognizedText(blocks: LineBlocks.blocks(of: readLines))
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
