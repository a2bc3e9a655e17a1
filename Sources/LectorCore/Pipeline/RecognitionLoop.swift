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
    /// The FRAME message as one JSON line (without newline), encoded once by the
    /// publishing thread rather than by the server.
    public var frameLine: [UInt8]
    /// The upright gray image that produced `text` (for snapshots).
    public var upright: GrayImage
    /// The captured frame as delivered, kept only while colour previews are asked for.
    public var captured: CapturedFrame?

    /// - Parameter textLine: `text.message().bytes`, encoded once by the caller.
    public init(text: TextReport, textLine: [UInt8], frame: FrameReport, upright: GrayImage, captured: CapturedFrame? = nil) {
        self.captured = captured
        self.text = text
        self.textLine = textLine
        self.frame = frame
        frameLine = frame.message.bytes
        self.upright = upright
    }
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

    public init(device: String, options: RecognizerOptions, mailbox: LatestFrameMailbox, counters: FrameCounters,
                orientation: OrientationControl, logger: Logger,
                publish: @escaping @Sendable (Publication) -> Void) throws(RecognitionError) {
        self.device = device
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
    public let colorPreview = ColorPreviewDemand()

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

    /// Recognizes frames until the mailbox closes.
    public func run() {
        while let frame = mailbox.take() {
            process(frame)
        }
    }

    /// Recognizes one frame and gives its buffer back. Public for benchmarks and tests.
    public func process(_ frame: Frame) {
        let start = MonotonicInstant.now()
        do {
            try extractor.extract(frame, into: &luma)
        } catch {
            frame.giveBack()
            counters.countRejected()
            logger.once("frame", .warning, "frame rejected", [("reason", error.description)])
            return
        }
        // A colour preview was asked for lately: keep the frame as captured.
        let captured = colorPreview.isWanted ? CapturedFrame(frame) : nil
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

        let report = TextReport(device: device, sequence: frame.sequence, captureTime: frame.timestamp,
                                unixTime: frame.timestamp.unixTime, transform: transform, text: text,
                                recognizeMilliseconds: recognized.milliseconds(since: prepared))
        let line = report.message().bytes
        let done = MonotonicInstant.now()
        let frameReport = FrameReport(
            device: device, sequence: frame.sequence, unixTime: report.unixTime, format: frame.format,
            width: luma.width, height: luma.height, orientation: transform.orientation, counters: counters.snapshot,
            latencyMilliseconds: done.milliseconds(since: frame.timestamp),
            recognizeMilliseconds: report.recognizeMilliseconds,
            overheadMilliseconds: prepared.milliseconds(since: start) + done.milliseconds(since: recognized),
            sharpness: sharpness, characterHeight: FocusMeasure.medianCharacterHeight(of: text))
        publish(Publication(text: report, textLine: line, frame: frameReport, upright: upright, captured: captured))
    }
}
