import Foundation
import LectorProtocol
import LectorSystem

/// One recognized frame, ready to publish: the report, its default TEXT line already
/// encoded (most subscribers get exactly that), and the FRAME report.
public struct Publication: Sendable {
    public var text: TextReport
    /// The TEXT message at word level with no confidence filter, as one JSON line
    /// (without newline).
    public var textLine: [UInt8]
    public var frame: FrameReport
    /// The upright gray image that produced `text` (for snapshots).
    public var upright: GrayImage
    /// The captured frame as delivered, kept only while colour previews are asked for.
    public var captured: CapturedFrame?
    /// What this frame did to the camera's line tracks (TRACK messages).
    public var tracks: [TrackEvent]
    /// The voted text of each line's track, in the order of the text's lines
    /// (`changes_only` compares this, not a frame's raw text).
    public var consensus: String

    /// - Parameter textLine: `text.message().bytes`, encoded once by the caller.
    public init(text: TextReport, textLine: [UInt8], frame: FrameReport, upright: GrayImage, captured: CapturedFrame? = nil,
                tracks: [TrackEvent] = [], consensus: String? = nil) {
        self.captured = captured
        self.text = text
        self.textLine = textLine
        self.frame = frame
        self.upright = upright
        self.tracks = tracks
        self.consensus = consensus ?? text.text.text
    }

    /// The TRACK messages of ``tracks``.
    public var trackMessages: [TrackMessage] { tracks.map { $0.message(transform: text.transform) } }
}

/// The recognizer side of a camera: takes the newest frame from the mailbox, extracts
/// luma, turns it upright, recognizes it, and hands the result to `publish`. Runs on
/// its own thread and never waits for a client.
public final class RecognitionLoop: @unchecked Sendable {
    // Everything below is touched only by the thread in run(), except `recognizer` and
    // `cancelled`, which `lock` guards (cancel and SIGHUP's replaceRecognizer come from
    // other threads).
    public let device: String
    private let mailbox: LatestFrameMailbox
    private let counters: FrameCounters
    private let orientation: OrientationControl
    private let lock = NSLock()
    private var recognizer: TextRecognizer
    /// The recognizer of the frame being recognized (the old one while a replacement waits).
    private var active: TextRecognizer?
    private var cancelled = false
    private let extractor = LumaExtractor()
    private let logger: Logger
    private let publish: @Sendable (Publication) -> Void
    private var luma = GrayImage(width: 0, height: 0)
    /// Gate and track settings; SIGHUP may replace them (``updateLive(_:)``), so `lock`
    /// guards this copy and each frame reads it once.
    private var liveSettings: LiveSettings
    /// The camera's line tracks; recognizer thread only.
    public let tracker: LineTracker
    /// The stack generation, signature, capture time and fullness of the frame last
    /// recognized (the gate's reference).
    private var lastRecognized: (generation: Int, signature: SceneSignature, time: MonotonicInstant, full: Bool)?
    /// Reads of the current still scene since its stack filled.
    private var readsOfScene = 0

    public init(device: String, options: RecognizerOptions, live: LiveSettings = LiveSettings(),
                colorPreview: ColorPreviewDemand = ColorPreviewDemand(), mailbox: LatestFrameMailbox, counters: FrameCounters,
                orientation: OrientationControl, logger: Logger,
                publish: @escaping @Sendable (Publication) -> Void) throws(RecognitionError) {
        self.device = device
        liveSettings = live
        self.colorPreview = colorPreview
        tracker = LineTracker(device: device, settings: live.tracks)
        self.mailbox = mailbox
        self.counters = counters
        self.orientation = orientation
        self.logger = logger.with("device", device)
        self.publish = publish
        recognizer = try TextRecognizer(options: options)
    }

    /// Where the last recognition spent its time inside Tesseract (benchmarks). Read it
    /// from the thread that calls ``process(_:)``.
    public var lastRecognitionTimings: RecognitionTimings { lock.withLock { active ?? recognizer }.lastTimings }

    /// Colour previews asked for (by SNAPSHOT with `color`): frames are kept only then.
    public let colorPreview: ColorPreviewDemand

    /// Stops a recognition in progress, or the next one (shutdown); safe from any thread.
    public func cancel() {
        lock.withLock {
            cancelled = true
            recognizer.cancel()
            active?.cancel()
        }
    }

    /// Lets recognition run again after ``cancel()``; call before a new run starts.
    public func resume() {
        lock.withLock {
            cancelled = false
            recognizer.resume()
            active?.resume()
        }
    }

    /// The settings of the recognizer the next frame uses.
    public var recognizerOptions: RecognizerOptions { currentRecognizer.options }

    /// The recognizer the next frame uses.
    private var currentRecognizer: TextRecognizer { lock.withLock { recognizer } }

    /// Recognizes the next frame with `options` (SIGHUP): the new recognizer is made
    /// here, on the caller's thread, and the loop takes it up before its next frame; a
    /// recognition in progress finishes with the old one.
    /// - Throws: when Tesseract cannot start with `options` (the old recognizer stays).
    public func replaceRecognizer(options: RecognizerOptions) throws(RecognitionError) {
        let replacement = try TextRecognizer(options: options)
        lock.withLock {
            if cancelled { replacement.cancel() }
            recognizer = replacement
        }
    }

    /// The gate's and the tracks' settings for the next frame (SIGHUP); safe from any
    /// thread. The stack's size is the capture side's and does not change here.
    public func updateLive(_ live: LiveSettings) {
        lock.withLock { liveSettings = live }
    }

    /// Recognizes frames until the mailbox closes.
    public func run() {
        while let frame = mailbox.take() {
            process(frame)
        }
    }

    /// Recognizes one frame and gives its buffer back. Public for benchmarks and tests.
    public func process(_ frame: Frame) {
        let start = MonotonicInstant.now()
        let live = lock.withLock { liveSettings }
        tracker.settings = live.tracks
        if let info = frame.stackInfo, isUnchanged(info, live: live, at: frame.timestamp) {
            frame.giveBack()
            counters.countUnchanged()
            tracker.touchAll(at: frame.timestamp)
            return
        }
        do {
            try extractor.extract(frame, into: &luma)
        } catch {
            frame.giveBack()
            counters.countRejected()
            logger.once("frame", .warning, "frame rejected", [("reason", error.description)])
            return
        }
        // A colour preview was asked for lately: keep the frame as captured (a stacked
        // frame carries the copy its stacker kept).
        let captured = frame.stackInfo.map(\.captured) ?? (colorPreview.isWanted ? CapturedFrame(frame) : nil)
        // The luma is a copy: the driver can have its buffer back before recognition.
        frame.giveBack()

        let transform = OrientationTransform(orientation: orientation.imageOrientation,
                                             sourceWidth: luma.width, sourceHeight: luma.height)
        var upright = GrayImage(width: 0, height: 0)
        transform.apply(luma, into: &upright)
        let sharpness = FocusMeasure.sharpness(of: luma)
        let prepared = MonotonicInstant.now()

        let text: RecognizedText
        do {
            let recognizer = lock.withLock {
                active = self.recognizer
                return self.recognizer
            }
            text = try recognizer.recognize(upright)
        } catch .cancelled {
            counters.countDropped()  // shutdown: the frame was fine, nobody wants its text now
            return
        } catch {
            counters.countRejected()
            logger.once("recognize", .warning, "recognition failed", [("reason", error.description)])
            return
        }
        logger.clearOnce("frame")
        let recognized = MonotonicInstant.now()
        counters.countRecognized()

        var report = TextReport(device: device, sequence: frame.sequence, captureTime: frame.timestamp,
                                unixTime: frame.timestamp.unixTime, transform: transform, text: text,
                                recognizeMilliseconds: recognized.milliseconds(since: prepared))
        let lines = text.blocks.flatMap(\.lines)
        let placed = tracker.update(
            lines: lines.map { line in
                LineTracker.Line(words: line.words.map { VotedWord($0.text, confidence: $0.confidence) }, box: line.box,
                                 strength: Double(frame.stackInfo?.stacked ?? 1).squareRoot())
            },
            shift: Self.uprightShift(frame.stackInfo?.shift, transform: transform), at: frame.timestamp)
        for (line, id) in zip(lines, placed.ids) { report.lineTracks[line.box] = id }
        let consensus = placed.ids.map { tracker.consensus(of: $0) ?? "" }.joined(separator: "\n")
        if let info = frame.stackInfo {
            readsOfScene = info.generation == lastRecognized?.generation && info.isFull ? readsOfScene + 1 : (info.isFull ? 1 : 0)
            lastRecognized = (info.generation, info.signature, frame.timestamp, info.isFull)
        }
        let line = report.message().bytes
        let done = MonotonicInstant.now()
        let frameReport = FrameReport(
            device: device, sequence: frame.sequence, unixTime: report.unixTime, format: frame.stackInfo?.capturedFormat ?? frame.format,
            width: luma.width, height: luma.height, orientation: transform.orientation, counters: counters.snapshot,
            latencyMilliseconds: done.milliseconds(since: frame.timestamp),
            recognizeMilliseconds: report.recognizeMilliseconds,
            overheadMilliseconds: prepared.milliseconds(since: start) + done.milliseconds(since: recognized),
            sharpness: sharpness, characterHeight: FocusMeasure.medianCharacterHeight(of: text),
            stacked: frame.stackInfo?.stacked)
        publish(Publication(text: report, textLine: line, frame: frameReport, upright: upright, captured: captured,
                            tracks: placed.events, consensus: consensus))
    }

    /// The change gate: whether `info`'s frame shows the scene last recognized, whose
    /// stack was full then (a filling stack still gets clearer), every track seen then
    /// is settled — or the full stack was read as often as a track keeps readings
    /// without settling (text too poor to agree on: more reads of the same image will
    /// not help) — and the refresh interval has not passed.
    private func isUnchanged(_ info: StackedFrameInfo, live: LiveSettings, at time: MonotonicInstant) -> Bool {
        guard live.gate, let last = lastRecognized, last.generation == info.generation, last.full,
              time.milliseconds(since: last.time) < live.refreshSeconds * 1000,
              info.signature.changedBlocks(from: last.signature, level: LiveSettings.gateLevel) < LiveSettings.gateBlocks
        else { return false }
        return tracker.isSettled || readsOfScene >= live.tracks.window
    }

    /// A captured-frame shift as seen in the upright image.
    static func uprightShift(_ shift: EstimatedShift?, transform: OrientationTransform) -> (dx: Int, dy: Int) {
        guard let shift, shift.dx != 0 || shift.dy != 0 else { return (0, 0) }
        let origin = transform.uprightBox(ofSource: PixelBox(x: 0, y: 0, width: 0, height: 0))
        let moved = transform.uprightBox(ofSource: PixelBox(x: shift.dx, y: shift.dy, width: 0, height: 0))
        return (moved.x - origin.x, moved.y - origin.y)
    }
}
