import LectorImaging
import LectorProtocol
import LectorSystem

/// One recognized frame: the content of a TEXT message.
public struct TextReport: Sendable {
    /// The camera (its path, or `demo`/`replay`).
    public var device: String
    public var sequence: UInt32
    /// Capture time, from the buffer timestamp.
    public var captureTime: MonotonicInstant
    /// Capture time as seconds since the Unix epoch, fixed when the report was made.
    public var unixTime: Double
    /// Maps upright boxes to captured-frame corners; knows the orientation and sizes.
    public var transform: OrientationTransform
    public var text: RecognizedText
    /// Tesseract's share: SetImage, Recognize and the result walk.
    public var recognizeMilliseconds: Double
    /// The line track of each line, by the line's box (TEXT's per-line `track`).
    public var lineTracks: [PixelBox: String] = [:]
    /// Whether the orientation's quarter turn was found from the text (`rotation auto`).
    public var automaticOrientation = false
    /// Lines of the scene not read yet (the read ran out of time; TEXT's `unread`).
    public var unreadLines = 0

    public init(device: String, sequence: UInt32, captureTime: MonotonicInstant, unixTime: Double,
                transform: OrientationTransform, text: RecognizedText, recognizeMilliseconds: Double) {
        self.device = device
        self.sequence = sequence
        self.captureTime = captureTime
        self.unixTime = unixTime
        self.transform = transform
        self.text = text
        self.recognizeMilliseconds = recognizeMilliseconds
    }

    /// The result with words under `minimumConfidence` removed (and lines and blocks
    /// left empty by that).
    public func filtered(minimumConfidence: Double) -> RecognizedText {
        guard minimumConfidence > 0 else { return text }
        return RecognizedText(blocks: text.blocks.compactMap { block in
            var block = block
            block.lines = block.lines.compactMap { line in
                var line = line
                line.words = line.words.filter { $0.confidence >= minimumConfidence }
                return line.words.isEmpty ? nil : line
            }
            return block.lines.isEmpty ? nil : block
        })
    }

    /// The TEXT message.
    /// - Parameters:
    ///   - level: the deepest element to include (`word` by default; `symbol` needs a
    ///     recognizer that reports symbols).
    ///   - minimumConfidence: words below it are left out.
    public func message(level: DetailLevel = .word, minimumConfidence: Double = 0) -> TextMessage {
        TextMessage(device: device, sequence: sequence, time: MonotonicInstant.rfc3339(unixTime: unixTime),
                    orientation: transform.orientation, width: transform.uprightWidth, height: transform.uprightHeight,
                    tree: filtered(minimumConfidence: minimumConfidence), level: level,
                    recognizeMilliseconds: recognizeMilliseconds, lineTracks: lineTracks,
                    automaticOrientation: automaticOrientation, unreadLines: unreadLines) { [transform] box in
            transform.sourceCorners(of: box).map { PixelPoint(x: $0.x, y: $0.y) }
        }
    }
}

/// One processed frame's bookkeeping: the content of a FRAME message.
public struct FrameReport: Sendable {
    public var device: String
    public var sequence: UInt32
    public var unixTime: Double
    public var format: PixelFormat
    /// Captured size.
    public var width: Int
    public var height: Int
    public var orientation: ImageOrientation
    public var counters: FrameCounters.Snapshot
    /// Publish time minus capture time.
    public var latencyMilliseconds: Double
    /// Tesseract's time for this frame.
    public var recognizeMilliseconds: Double
    /// Everything else Lector spent on it: luma, orientation, downscale, building and
    /// encoding the TEXT message.
    public var overheadMilliseconds: Double
    /// The focus figure: variance of the Laplacian of the luma (``FocusMeasure``).
    public var sharpness: Double?
    /// The median height of the recognized words, in upright pixels.
    public var characterHeight: Double?
    /// Frames the recognized image averages (nil: not stacked).
    public var stacked: Int?
    /// Whether the orientation's quarter turn was found from the text (`rotation auto`).
    public var automaticOrientation = false

    public init(device: String, sequence: UInt32, unixTime: Double, format: PixelFormat, width: Int, height: Int,
                orientation: ImageOrientation, counters: FrameCounters.Snapshot, latencyMilliseconds: Double,
                recognizeMilliseconds: Double, overheadMilliseconds: Double,
                sharpness: Double? = nil, characterHeight: Double? = nil, stacked: Int? = nil) {
        self.sharpness = sharpness
        self.characterHeight = characterHeight
        self.stacked = stacked
        self.device = device
        self.sequence = sequence
        self.unixTime = unixTime
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.counters = counters
        self.latencyMilliseconds = latencyMilliseconds
        self.recognizeMilliseconds = recognizeMilliseconds
        self.overheadMilliseconds = overheadMilliseconds
    }

    /// The FRAME message.
    public var message: FrameMessage {
        FrameMessage(device: device, sequence: sequence, time: MonotonicInstant.rfc3339(unixTime: unixTime),
                     format: format.fourcc, width: width, height: height, orientation: orientation,
                     captured: counters.captured, recognized: counters.recognized, dropped: counters.dropped,
                     rejected: counters.rejected, latencyMilliseconds: latencyMilliseconds,
                     recognizeMilliseconds: recognizeMilliseconds, overheadMilliseconds: overheadMilliseconds,
                     sharpness: sharpness.map { ($0 * 10).rounded() / 10 }, characterHeight: characterHeight,
                     unchanged: counters.unchanged, stacked: stacked, automaticOrientation: automaticOrientation)
    }
}
