import Foundation
import LectorCapture
import LectorDetector
import LectorEngine
import LectorImaging
import LectorLive
import LectorProtocol
import LectorRecognition
import LectorSystem
import Synchronization

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
    /// The frame as captured, still borrowed while the rules decide (where evidence is
    /// kept): an accepted MATCH's evidence is made from it. Released once published.
    public var held: HeldCapture?
    /// What this frame did to the camera's line tracks (TRACK messages).
    public var tracks: [TrackEvent]
    /// The voted text of each line's track, in the order of the text's lines
    /// (`changes_only` compares this, not a frame's raw text).
    public var consensus: String
    /// What the camera's rules matched in this frame (MATCH messages; set by the publisher).
    public var matches: [MatchMessage] = []

    /// - Parameter textLine: `text.message().bytes`, encoded once by the caller.
    public init(text: TextReport, textLine: [UInt8], frame: FrameReport, upright: GrayImage, captured: CapturedFrame? = nil,
                held: HeldCapture? = nil, tracks: [TrackEvent] = [], consensus: String? = nil) {
        self.captured = captured
        self.held = held
        self.text = text
        self.textLine = textLine
        self.frame = frame
        frameLine = frame.message.bytes
        self.upright = upright
        self.tracks = tracks
        self.consensus = consensus ?? text.text.text
    }

    /// The TRACK messages of ``tracks``.
    public var trackMessages: [TrackMessage] { tracks.map { $0.message(transform: text.transform) } }
}

/// The recognizer side of a camera: ``RecognizerPool/count`` recognizer threads, each
/// taking the newest frame from the mailbox when it becomes free (the latest-frame rule:
/// no frame waits behind another), extracting luma, turning it upright, recognizing it
/// with its own Tesseract engine, and handing the result to `publish`. Never waits for
/// a client.
///
/// Results can finish out of order. They pass one ordered step (`ordering`): a result
/// whose frame was captured before one already published is not published (counted as
/// dropped), so capture times of published results strictly increase; the tracker, the
/// gate's state and `publish` run inside that step, so tracks are updated one result at
/// a time, in capture order.
public final class RecognitionLoop: @unchecked Sendable {
    // `lock` guards `liveSettings`; `ordering` guards the tracker, the gate's state and
    // `lastPublished`; each slot's `Worker` is touched by its own thread only.
    public let device: String
    private let mailbox: LatestFrameMailbox
    private let counters: FrameCounters
    private let orientation: OrientationControl
    private let lock = NSLock()
    private let ordering = NSLock()
    /// The camera's recognizers, one per thread.
    public let pool: RecognizerPool
    private let workers: [Worker]
    private let logger: Logger
    private let publish: @Sendable (Publication) -> Void
    /// The camera's QR codes and barcodes, read before each frame's text.
    private let codeWatch: CodeWatch
    /// Called on a recognizer thread with the codes that came into view in a frame,
    /// before that frame's text is read; must not block.
    private let publishCodes: @Sendable (CodePublication) -> Void
    private let warn: @Sendable (String?) -> Void
    /// What is wrong with how the camera reads (under `lock`: recognizer threads share it).
    private var warnings = Warnings()

    /// The camera's warnings; DEVICES shows one (``shown``).
    private struct Warnings {
        /// The region of interest does not fit the image.
        var region: String?
        /// Reads run out of time.
        var deadline: String?
        var shown: String? { region ?? deadline }
    }
    /// Told the camera's zones, with what of them does not fit the frames, when that changes.
    private let reportZones: @Sendable ([ZoneInfo]?) -> Void
    /// The zones last given to `reportZones` (under `lock`).
    private var lastZones: [ZoneInfo]?
    /// Gate and track settings; SIGHUP may replace them (``updateLive(_:)``), so `lock`
    /// guards this copy and each frame reads it once.
    private var liveSettings: LiveSettings
    /// The camera's line tracks; inside `ordering` only.
    public let tracker: LineTracker
    /// The stack generation, signature, capture time, fullness and reading setup of the
    /// frame last recognized (the gate's reference); `time` moves on when a refresh finds
    /// the scene still as read (``StillSceneRefresh``).
    private var lastRecognized: (generation: Int, signature: SceneSignature, time: MonotonicInstant, full: Bool, complete: Bool,
                                 setup: ReadingSetup)?
    /// Counts recognizer replacements (SIGHUP; under `lock`).
    private var recognizerRevision = 0
    /// Reads of the current still scene since its stack filled.
    private var readsOfScene = 0
    /// The frame last read, for the refresh of a still scene on a camera with a
    /// ``sceneHint`` (inside `ordering`).
    private var refresh = StillSceneRefresh()
    /// Capture time of the last published result.
    private var lastPublished: MonotonicInstant?
    /// `rotation auto`: checks the quarter turn of the captured luma when a scene changes.
    public let autoOrientation: AutoOrientation
    /// Whether a frame stays borrowed until its publication is done (evidence in colour).
    private let holdsCaptured: Bool
    /// The source's: told whether the gate finds the scene still (a network camera then
    /// decodes key frames only); nil: the source does not listen.
    public let sceneHint: StillSceneHint?

    /// What one recognizer thread reuses from frame to frame.
    private final class Worker: @unchecked Sendable {
        let extractor = LumaExtractor()
        var luma = GrayImage(width: 0, height: 0)
    }

    /// - Parameters:
    ///   - recognizers: recognizer threads (and Tesseract engines), at least 1.
    ///   - holdsCaptured: each frame (or a stacked frame's newest captured one) stays
    ///     borrowed, uncopied, until it is published (``Publication/held``), for evidence in colour.
    public init(device: String, options: RecognizerOptions, recognizers: Int = 1, live: LiveSettings = LiveSettings(),
                colorPreview: ColorPreviewDemand = ColorPreviewDemand(), holdsCaptured: Bool = false,
                mailbox: LatestFrameMailbox, counters: FrameCounters,
                orientation: OrientationControl, logger: Logger, warn: @escaping @Sendable (String?) -> Void = { _ in },
                reportZones: @escaping @Sendable ([ZoneInfo]?) -> Void = { _ in }, sceneHint: StillSceneHint? = nil,
                publishCodes: @escaping @Sendable (CodePublication) -> Void = { _ in },
                publish: @escaping @Sendable (Publication) -> Void) throws(RecognitionError) {
        self.device = device
        self.sceneHint = sceneHint
        self.publishCodes = publishCodes
        codeWatch = CodeWatch(device: device, logger: logger.with("device", device))
        self.warn = warn
        self.reportZones = reportZones
        liveSettings = live
        self.colorPreview = colorPreview
        self.holdsCaptured = holdsCaptured
        tracker = LineTracker(device: device, settings: live.tracks)
        self.mailbox = mailbox
        self.counters = counters
        self.orientation = orientation
        self.logger = logger.with("device", device)
        self.publish = publish
        pool = try RecognizerPool(count: max(1, recognizers), options: options)
        autoOrientation = AutoOrientation(dataPath: options.dataPath, logger: self.logger)
        workers = (0..<pool.count).map { _ in Worker() }
        reportLayout()
        let asksForCodes = !options.codes.isEmpty || options.zones.contains { !($0.profile.codes ?? []).isEmpty }
        if asksForCodes, !CodeReader.isAvailable { self.logger.warning("codes are not read: \(CodeReaderError.unavailable)") }
    }

    /// Whether the log said (once per process) that `layout auto` reads without the detector.
    private static let saidWithoutDetector = Atomic<Bool>(false)

    /// Says in the log which layout the camera reads with; once per process that `auto`
    /// reads without the detector, and why.
    private func reportLayout() {
        let (layout, note) = pool.layout
        switch layout {
        case let .detector(modelPath):
            logger.info("reading with the text-line detector", [("model", modelPath)])
        case .tesseract:
            if let note, !Self.saidWithoutDetector.exchange(true, ordering: .relaxed) {
                logger.info("reading without the text-line detector: \(note)")
            }
        }
        let engine = pool.engine
        if engine.neural {
            logger.info("reading lines with the neural line recognizer too", [("engine", pool.options.engine.rawValue)])
        } else if let note = engine.note, !Self.saidWithoutNeural.exchange(true, ordering: .relaxed) {
            logger.info("reading lines without the neural line recognizer: \(note)")
        }
    }

    /// Whether the log said (once per process) that `--engine auto` reads without the neural recognizer.
    private static let saidWithoutNeural = Atomic<Bool>(false)

    /// Recognizer threads this loop runs (``run(slot:)`` once per slot).
    public var recognizers: Int { pool.count }

    /// Where the last recognition of slot 0 spent its time inside Tesseract (benchmarks).
    /// Read it from the thread that calls ``process(_:)``.
    public var lastRecognitionTimings: RecognitionTimings { pool.lastTimings(slot: 0) }

    /// Colour previews asked for (by SNAPSHOT with `color`): frames are kept only then.
    public let colorPreview: ColorPreviewDemand

    /// Stops every recognition in progress, or the next ones (shutdown); safe from any thread.
    public func cancel() {
        pool.cancel()
        autoOrientation.cancel()
    }

    /// Lets recognition run again after ``cancel()``; call before a new run starts.
    public func resume() {
        pool.resume()
        autoOrientation.resume()
    }

    /// The settings of the recognizers the next frames use.
    public var recognizerOptions: RecognizerOptions { pool.options }

    /// Recognizes the next frames with `options` (SIGHUP): the new engines are loaded
    /// here, on the caller's thread, and each recognizer thread takes up its new one
    /// before its next frame; recognitions in progress finish with the old ones.
    /// - Throws: when Tesseract cannot start with `options` (the old recognizers stay).
    public func replaceRecognizer(options: RecognizerOptions) throws(RecognitionError) {
        try pool.replace(options: options)
        lock.withLock { recognizerRevision += 1 }
        reportLayout()
    }

    /// Reports the zones again with the next frame (their settings changed).
    public func forgetZones() {
        lock.withLock { lastZones = nil }
    }

    /// The gate's and the tracks' settings for the next frame (SIGHUP); safe from any
    /// thread. The stack's size is the capture side's and does not change here.
    public func updateLive(_ live: LiveSettings) {
        lock.withLock { liveSettings = live }
    }

    /// Recognizes frames with slot 0 until the mailbox closes.
    public func run() { run(slot: 0) }

    /// Recognizes frames with recognizer `slot` until the mailbox closes; each slot on a
    /// thread of its own. Slot 0 also starts the thread that reads codes beside text
    /// reads (``CodesBeside``), which ends with it.
    public func run(slot: Int) {
        let beside = slot == 0 ? startCodesBeside() : nil
        defer { beside?.stop() }
        while let frame = mailbox.take() {
            process(frame, slot: slot)
        }
    }

    /// Text reads in progress (recognizer slots between their codes and their text).
    private let textReads = Atomic<Int>(0)

    /// The thread reading codes beside text reads, while every recognizer reads text.
    private func startCodesBeside() -> CodesBeside {
        let beside = CodesBeside()
        let slots = pool.count
        Thread.detachNewThread { [self] in
            Thread.current.name = "lector-codes"
            beside.run(mailbox: mailbox, watch: codeWatch, isReading: { textReads.load(ordering: .relaxed) >= slots },
                       settings: { (pool.options, orientation.inForce.orientation) }, publish: publishCodes)
        }
        return beside
    }

    /// Recognizes one frame with slot 0 and gives its buffer back. Public for benchmarks and tests.
    public func process(_ frame: Frame) { process(frame, slot: 0) }

    /// Recognizes one frame with recognizer `slot` and gives its buffer back: the change
    /// gate may skip it; else it is prepared (luma, upright), read, and its text tracked
    /// and published in capture order.
    public func process(_ frame: Frame, slot: Int) {
        let worker = workers[slot]
        let start = MonotonicInstant.now()
        let (live, setup) = readingSettings()
        guard case let .read(extracted) = gate(frame, setup: setup, live: live, worker: worker) else { return }
        let codes = codeWatch.claim(time: frame.timestamp, stack: frame.stackInfo, beside: false)
        guard let prepared = prepare(frame, worker: worker, extracted: extracted) else { return }
        // Published (or not) by now: the captured frame goes back to its source.
        defer { prepared.held?.release() }
        if codes { readCodes(prepared, sequence: frame.sequence, time: frame.timestamp) }
        textReads.add(1, ordering: .relaxed)
        defer { textReads.subtract(1, ordering: .relaxed) }
        guard let (text, progress) = read(prepared, stack: frame.stackInfo, slot: slot) else { return }
        logger.clearOnce("frame")
        let recognized = MonotonicInstant.now()
        publishInCaptureOrder(frame, prepared: prepared, read: (text, progress), live: live, setup: setup,
                              times: (start: start, recognized: recognized))
    }

    /// Reads the codes of a prepared frame (when the camera or its zones look for any)
    /// and publishes those that came into view, before the frame's text is read.
    private func readCodes(_ prepared: PreparedFrame, sequence: UInt32, time: MonotonicInstant) {
        let options = pool.options
        guard !CodeWatch.places(options).isEmpty else { return }
        let start = MonotonicInstant.now()
        let news = codeWatch.look(at: prepared.upright, transform: prepared.transform, options: options, sequence: sequence, time: time)
        logger.debug("codes read", [("ms", String(format: "%.1f", MonotonicInstant.now().milliseconds(since: start))),
                                    ("new", "\(news.count)")])
        if !news.isEmpty { publishCodes(CodePublication(device: device, codes: news, upright: prepared.upright, unixTime: time.unixTime)) }
    }

    /// A frame made ready to read: its luma, turned upright.
    private struct PreparedFrame {
        /// The frame's luma as captured (or as stacked).
        var luma: GrayImage
        /// `luma` turned by `transform`: what is read.
        var upright: GrayImage
        var transform: OrientationTransform
        /// The orientation in force when the frame was turned, and whether `rotation auto` chose it.
        var inForce: (orientation: ImageOrientation, automatic: Bool)
        /// The frame as captured, kept while colour previews are asked for.
        var captured: CapturedFrame?
        /// The frame as captured, still borrowed (where evidence is kept).
        var held: HeldCapture?
        var sharpness: Double
        /// When preparing ended (recognition's start).
        var prepared: MonotonicInstant
    }

    /// The gate's and tracks' settings for this frame (one read of `lock`) and what its
    /// reading depends on besides its pixels.
    private func readingSettings() -> (live: LiveSettings, setup: ReadingSetup) {
        let (live, recognizerRevision) = lock.withLock { (liveSettings, self.recognizerRevision) }
        let turn = orientation.orientationAndRevision
        let setup = ReadingSetup(orientation: turn.orientation, orientationRevision: turn.revision, recognizerRevision: recognizerRevision)
        return (live, setup)
    }

    /// What the change gate decided for a frame.
    private enum GateDecision {
        /// Given back unread, counted unchanged.
        case skipped
        /// To be read; `extracted`: its luma is in the worker's image already (a refresh compared it).
        case read(extracted: Bool)
    }

    /// The change gate's turn (inside `ordering`): a stacked frame of the scene last
    /// recognized, read the same way, is given back unread and counted unchanged; its
    /// tracks count as seen unless a newer frame was published. On a camera with a
    /// ``sceneHint``, a frame due only for its refresh is skipped the same way when its
    /// pixels are still those last read (``StillSceneRefresh``).
    private func gate(_ frame: Frame, setup: ReadingSetup, live: LiveSettings, worker: Worker) -> GateDecision {
        guard let info = frame.stackInfo else { return .read(extracted: false) }
        let (unchanged, refreshDue, lastRead) = ordering.withLock { () -> (Bool, Bool, GrayImage?) in
            tracker.settings = live.tracks
            if isUnchanged(info, setup: setup, live: live, at: frame.timestamp) {
                if lastPublished.map({ frame.timestamp > $0 }) ?? true { tracker.touchAll(at: frame.timestamp) }
                return (true, false, nil)
            }
            let due = isUnchanged(info, setup: setup, live: live, at: nil)
            return (false, due, due ? refresh.lastRead : nil)
        }
        // A refresh due reads the still scene again without waking the source's decoder.
        sceneHint?.set(still: unchanged || refreshDue)
        var skipped = unchanged, extracted = false
        if refreshDue, sceneHint != nil, lastRead != nil {
            extracted = (try? worker.extractor.extract(frame, into: &worker.luma)) != nil
            if extracted, refreshFindsFrameRead(frame, luma: worker.luma, lastRead: lastRead, info: info, setup: setup, live: live) {
                skipped = true
            }
        }
        guard skipped else { return .read(extracted: extracted) }
        codeWatch.sceneUnchanged(at: frame.timestamp)
        frame.giveBack()
        counters.countUnchanged()
        return .skipped
    }

    /// Whether a frame due for its refresh still shows the frame last read (``StillSceneRefresh``);
    /// if so (inside `ordering`), the refresh counts as done at the frame's time and its
    /// tracks as seen.
    private func refreshFindsFrameRead(_ frame: Frame, luma: GrayImage, lastRead: GrayImage?, info: StackedFrameInfo,
                                       setup: ReadingSetup, live: LiveSettings) -> Bool {
        guard let change = StillSceneRefresh.change(from: lastRead, to: luma) else { return false }
        let same = StillSceneRefresh.isSame(change)
        logger.debug(same ? "still scene as last read at its refresh: not read again" : "still scene changed since last read: read again",
                     [("mean_difference", String(format: "%.2f", change.meanDifference)),
                      ("largest_block_difference", String(format: "%.1f", change.largestBlockDifference))])
        guard same else { return false }
        return ordering.withLock {
            // Another recognizer read meanwhile, or the scene moved on: read as usual.
            guard isUnchanged(info, setup: setup, live: live, at: nil), let last = lastRecognized, frame.timestamp > last.time else { return false }
            lastRecognized?.time = frame.timestamp
            if lastPublished.map({ frame.timestamp > $0 }) ?? true { tracker.touchAll(at: frame.timestamp) }
            return true
        }
    }

    /// Extracts the frame's luma into `worker`'s image, gives the frame back (keeping a
    /// copy while colour previews are asked for), lets `rotation auto` look at it, and
    /// turns it upright.
    /// - Parameter extracted: the frame's luma is in `worker`'s image already.
    /// - Returns: nil when the frame is rejected (counted, logged; its buffer given back).
    private func prepare(_ frame: Frame, worker: Worker, extracted: Bool = false) -> PreparedFrame? {
        do {
            if !extracted { try worker.extractor.extract(frame, into: &worker.luma) }
        } catch {
            frame.giveBack()
            counters.countRejected()
            logger.frameRejected(frame, reason: error.description)
            return nil
        }
        let luma = worker.luma
        // A colour preview was asked for lately: keep the frame as captured (a stacked
        // frame carries the copy its stacker kept).
        let captured = frame.stackInfo.map(\.captured) ?? colorPreview.keep(frame)
        // The luma is a copy: the driver can have its buffer back before recognition,
        // unless evidence is kept: then the captured frame stays borrowed until published
        // (a stacked frame's mean goes back now, its newest captured frame later).
        let held = frame.held ?? (holdsCaptured && frame.stackInfo == nil ? HeldCapture(frame) : nil)
        if frame.held != nil {
            frame.buffer.giveBack()
        } else if held == nil {
            frame.giveBack()
        }

        autoOrientation.update(luma, stack: frame.stackInfo, at: frame.timestamp, control: orientation, deadline: pool.options.deadline)
        let inForce = orientation.inForce
        let transform = OrientationTransform(orientation: inForce.orientation, sourceWidth: luma.width, sourceHeight: luma.height)
        var upright = GrayImage(width: 0, height: 0)
        transform.apply(luma, into: &upright)
        let sharpness = FocusMeasure.sharpness(of: luma)
        return PreparedFrame(luma: luma, upright: upright, transform: transform, inForce: inForce, captured: captured,
                             held: held, sharpness: sharpness, prepared: MonotonicInstant.now())
    }

    /// Reads the upright image with recognizer `slot`, after saying (once per change)
    /// what of the region of interest and the zones does not fit it.
    /// - Parameter stack: the frame's stack: its scene lets the detector layout re-read
    ///   the lines it knows and deskew reuse its angle.
    /// - Returns: the text and how far the read got; nil when the read was cancelled
    ///   (counted dropped) or failed (counted rejected).
    private func read(_ prepared: PreparedFrame, stack: StackedFrameInfo?, slot: Int) -> (RecognizedText, ReadProgress)? {
        let upright = prepared.upright
        do {
            let recognizer = pool.begin(slot: slot)
            warnOfRegion(recognizer.regionProblem(width: upright.width, height: upright.height))
            // Zones outside the upright image (said once per change; such a zone is not read).
            warnOfZones(recognizer.options.zones.isEmpty ? nil : recognizer.zoneInfos(width: upright.width, height: upright.height))
            let text = try recognizer.recognize(upright, scene: Self.sceneHint(of: stack, transform: prepared.transform))
            if let skew = recognizer.lastSkewDegrees { logger.debug("levelled", [("degrees", String(format: "%.1f", skew))]) }
            if let detector = recognizer.lastDetectorRead { logger.debug("detector read", Self.fields(of: detector)) }
            if let check = recognizer.takeLanguageCheck() {
                logger.debug("script checked", [("script", check.script ?? "unknown"), ("confidence", String(format: "%.2f", check.confidence)),
                                                ("tried", check.tried.joined(separator: ",")), ("language", check.language)])
            }
            for language in recognizer.takeMissingLanguages() {
                logger.warning("a scene's script needs a language that is not installed; it is read as \(ScriptLanguages.latin)",
                               [("language", language), ("install", ScriptLanguages.package(of: language))])
            }
            warnOfDeadline(recognizer.lastProgress, deadline: recognizer.options.deadline)
            return (text, recognizer.lastProgress)
        } catch .cancelled {
            counters.countDropped()  // shutdown: the frame was fine, nobody wants its text now
            return nil
        } catch {
            counters.countRejected()
            logger.once("recognize", .warning, "recognition failed", [("reason", error.description)])
            return nil
        }
    }

    /// What a detector read did, as log fields.
    private static func fields(of read: DetectorRead) -> [(String, String)] {
        let milliseconds = { (value: Double) in String(format: "%.0f", value) }
        var fields = [("lines", "\(read.lines)"), ("read", "\(read.linesRead)"), ("neural", "\(read.neuralReads)"),
                      ("unchanged", "\(read.unchangedLines)"), ("unread", "\(read.unread)"), ("ms", milliseconds(read.totalMilliseconds)),
                      ("budget_ms", "\(read.budgetMilliseconds)")]
        if read.detected { fields += [("detected_at", "\(read.detectedSide)"), ("detect_ms", milliseconds(read.detectMilliseconds))] }
        if read.detectionKept { fields.append(("detection", "kept")) }
        if let probe = read.probeMilliseconds { fields.append(("probe_ms", milliseconds(probe))) }
        if read.directionsUndecided { fields.append(("reading_direction", "still voting")) }
        return fields
    }

    /// A region of interest outside the image (--roi, roi =): said once per change, in
    /// the log and in DEVICES.
    private func warnOfRegion(_ problem: String?) {
        let changed = updateWarnings { warnings in
            guard problem != warnings.region else { return false }
            warnings.region = problem
            return true
        }
        if changed, let problem { logger.warning("region of interest does not fit the image", [("problem", problem)]) }
    }

    /// Says (once, in the log and in DEVICES' `warning`) that reads run out of time and
    /// publish partial text, and takes the warning back when a read is whole again.
    private func warnOfDeadline(_ progress: ReadProgress, deadline: Int) {
        let warning = progress.outOfTime
            ? "reads run out of time (deadline \(deadline) ms): publishing the lines read so far and reading "
                + "the rest over the next frames; see --deadline-ms"
            : nil
        let changed = updateWarnings { warnings in
            guard (warnings.deadline == nil) != (warning == nil) else { return false }
            warnings.deadline = warning
            return true
        }
        if changed, let warning {
            var fields = [("unread_lines", "\(progress.unreadLines)")]
            if progress.linesToReadAgain > 0 { fields.append(("lines_to_read_again", "\(progress.linesToReadAgain)")) }
            if progress.directionsUndecided { fields.append(("reading_direction", "still voting")) }
            if !progress.unreadZones.isEmpty {
                let names = progress.unreadZones.prefix(10).joined(separator: ",")
                fields = [("unread_zones", "\(progress.unreadZones.count)"),
                          ("zones", names + (progress.unreadZones.count > 10 ? ",..." : ""))]
            }
            logger.warning(warning, fields)
        }
    }

    /// Changes the camera's warnings (under `lock`: recognizer threads share them) and
    /// tells DEVICES when the one shown changed.
    /// - Returns: what `change` returned (whether it changed anything).
    private func updateWarnings(_ change: (inout Warnings) -> Bool) -> Bool {
        let (changed, shown): (Bool, String??) = lock.withLock {
            let before = warnings.shown
            let changed = change(&warnings)
            return (changed, warnings.shown == before ? .none : .some(warnings.shown))
        }
        if let shown { warn(shown) }
        return changed
    }

    /// Reports the zones when they changed (`lastZones`, under `lock`), logging each
    /// zone whose problem is new.
    private func warnOfZones(_ zones: [ZoneInfo]?) {
        let previousZones: [ZoneInfo]?? = lock.withLock {
            guard zones != lastZones else { return .none }
            defer { lastZones = zones }
            return .some(lastZones)
        }
        if let previousZones {
            for zone in zones ?? [] where zone.warning != nil && previousZones?.first(where: { $0.name == zone.name })?.warning != zone.warning {
                logger.warning("zone does not fit the image", [("zone", zone.name), ("problem", zone.warning ?? "")])
            }
            reportZones(zones)
        }
    }

    /// The stack's scene as the recognizer sees it (upright); nil without a stack.
    private static func sceneHint(of stack: StackedFrameInfo?, transform: OrientationTransform) -> SceneHint? {
        stack.map { info in
            let shift = uprightShift(info.shift, transform: transform)
            return SceneHint(generation: info.generation, dx: shift.dx, dy: shift.dy,
                             orientation: transform.orientation.rawValue, full: info.isFull)
        }
    }

    /// The ordered step (inside `ordering`): a result later than one already published
    /// is dropped; else its lines update the tracks, the gate remembers the frame, and
    /// the TEXT and FRAME reports are published, so results reach clients in capture order.
    /// - Parameter times: when the frame's processing started, and when its read ended.
    private func publishInCaptureOrder(_ frame: Frame, prepared: PreparedFrame, read: (text: RecognizedText, progress: ReadProgress),
                                       live: LiveSettings, setup: ReadingSetup,
                                       times: (start: MonotonicInstant, recognized: MonotonicInstant)) {
        let text = read.text
        ordering.withLock {
            // Another recognizer published a newer frame meanwhile: this result is late.
            if let last = lastPublished, frame.timestamp <= last {
                counters.countDropped()
                return
            }
            lastPublished = frame.timestamp
            counters.countRecognized()
            tracker.settings = live.tracks
            var report = TextReport(device: device, sequence: frame.sequence, captureTime: frame.timestamp,
                                    unixTime: frame.timestamp.unixTime, transform: prepared.transform, text: text,
                                    recognizeMilliseconds: times.recognized.milliseconds(since: prepared.prepared))
            report.automaticOrientation = prepared.inForce.automatic
            report.unreadLines = read.progress.unreadLines
            let (events, consensus) = track(text, progress: read.progress, of: frame,
                                            orientation: prepared.inForce.orientation, transform: prepared.transform, report: &report)
            rememberRecognized(frame, setup: setup, orientation: prepared.inForce.orientation, complete: read.progress.isComplete)
            if sceneHint != nil { refresh.remember(prepared.luma) }
            let line = report.message().bytes
            let frameReport = frameReport(of: frame, prepared: prepared, text: text, report: report, times: times,
                                          done: MonotonicInstant.now())
            // Inside the ordered step, so that results reach clients in capture order.
            publish(Publication(text: report, textLine: line, frame: frameReport, upright: prepared.upright,
                                captured: prepared.captured, held: prepared.held, tracks: events, consensus: consensus))
        }
    }

    /// Updates the tracks with the text's lines (inside `ordering`, before
    /// ``rememberRecognized(_:setup:orientation:)``: a new scene and a new orientation are
    /// judged against the frame last recognized) and notes each line's track in `report`.
    /// - Returns: the TRACK events (tracks ended by a turn first) and the voted text of
    ///   each line's track, one per line.
    /// - Parameter progress: the read's progress: its carried lines (an earlier frame of
    ///   the scene read them) keep their tracks alive, its repeated ones (pixels unchanged
    ///   since their reading) confirm them, neither votes again.
    private func track(_ text: RecognizedText, progress: ReadProgress, of frame: Frame, orientation: ImageOrientation,
                       transform: OrientationTransform, report: inout TextReport) -> (events: [TrackEvent], consensus: String) {
        let lines = text.blocks.flatMap(\.lines)
        // Turned another way: the upright image's geometry changed, so every track
        // ends now (`gone`) and the lines start new ones, instead of the old tracks
        // lingering beside the new ones until they time out.
        let ended = lastRecognized.map { $0.setup.orientation != orientation } == true ? tracker.endAll() : []
        let placed = tracker.update(
            lines: lines.map { line in
                LineTracker.Line(words: line.words.map { VotedWord($0.text, confidence: $0.confidence) }, box: line.box,
                                 strength: Double(frame.stackInfo?.stacked ?? 1).squareRoot(),
                                 isCarried: progress.carriedLines.contains(line.box), isRepeated: progress.repeatedLines.contains(line.box),
                                 isReread: line.engine == "neural")
            },
            shift: Self.uprightShift(frame.stackInfo?.shift, transform: transform), at: frame.timestamp,
            // A stack started since the frame last read: the scene changed.
            newScene: frame.stackInfo.map { $0.generation != lastRecognized?.generation } ?? false)
        for (line, id) in zip(lines, placed.ids) { report.lineTracks[line.box] = id }
        let consensus = placed.ids.map { tracker.consensus(of: $0) ?? "" }.joined(separator: "\n")
        return (ended + placed.events, consensus)
    }

    /// The gate's reference (inside `ordering`): a stacked frame just recognized, read
    /// with `setup` turned to `orientation`, whether every line of its scene has been
    /// read (`complete`), and how often its still scene was read full.
    private func rememberRecognized(_ frame: Frame, setup: ReadingSetup, orientation: ImageOrientation, complete: Bool) {
        guard let info = frame.stackInfo else { return }
        readsOfScene = info.generation == lastRecognized?.generation && info.isFull ? readsOfScene + 1 : (info.isFull ? 1 : 0)
        var used = setup
        used.orientation = orientation
        lastRecognized = (info.generation, info.signature, frame.timestamp, info.isFull, complete, used)
    }

    /// The FRAME report: the frame's format and size, the counters, and where its time
    /// went (latency to `done`, recognition, and the overhead before and after it).
    private func frameReport(of frame: Frame, prepared: PreparedFrame, text: RecognizedText, report: TextReport,
                             times: (start: MonotonicInstant, recognized: MonotonicInstant), done: MonotonicInstant) -> FrameReport {
        let luma = prepared.luma
        var frameReport = FrameReport(
            device: device, sequence: frame.sequence, unixTime: report.unixTime, format: frame.stackInfo?.capturedFormat ?? frame.format,
            width: luma.width, height: luma.height, orientation: prepared.transform.orientation, counters: counters.snapshot,
            latencyMilliseconds: done.milliseconds(since: frame.timestamp),
            recognizeMilliseconds: report.recognizeMilliseconds,
            overheadMilliseconds: prepared.prepared.milliseconds(since: times.start) + done.milliseconds(since: times.recognized),
            sharpness: prepared.sharpness, characterHeight: FocusMeasure.medianCharacterHeight(of: text),
            stacked: frame.stackInfo?.stacked)
        frameReport.automaticOrientation = prepared.inForce.automatic
        return frameReport
    }

    /// The change gate: whether `info`'s frame shows the scene last recognized, whose
    /// stack was full then (a filling stack still gets clearer), read the same way
    /// (`setup`: a new orientation or recognizer reads the scene again at once), every
    /// track was seen then and is settled — or the full stack was read as often as a track keeps
    /// readings without settling (text too poor to agree on: more reads of the same
    /// image will not help) — and the refresh interval has not passed.
    /// - Parameter time: the frame's capture time; nil: whatever the refresh interval says.
    private func isUnchanged(_ info: StackedFrameInfo, setup: ReadingSetup, live: LiveSettings, at time: MonotonicInstant?) -> Bool {
        // A scene read in part (the deadline came first) is read on until every line was read.
        guard live.gate, let last = lastRecognized, last.generation == info.generation, last.full, last.complete, last.setup == setup,
              time.map({ $0.milliseconds(since: last.time) < live.refreshSeconds * 1000 }) ?? true,
              info.signature.changedBlocks(from: last.signature, level: LiveSettings.gateLevel) < LiveSettings.gateBlocks
        else { return false }
        return tracker.isSettled || readsOfScene >= live.tracks.window
    }

    /// What the reading of a frame depends on besides its pixels. (Measured before it
    /// was part of the gate: after an ORIENTATION request the still scene was not read
    /// again until its 10 s refresh.)
    struct ReadingSetup: Equatable {
        var orientation: ImageOrientation
        /// ``OrientationControl/revision``: the settings changed (also to the same turn, or to `auto`).
        var orientationRevision: Int
        var recognizerRevision: Int
    }

    /// A captured-frame shift as seen in the upright image.
    static func uprightShift(_ shift: EstimatedShift?, transform: OrientationTransform) -> (dx: Int, dy: Int) {
        guard let shift, shift.dx != 0 || shift.dy != 0 else { return (0, 0) }
        let origin = transform.uprightBox(ofSource: PixelBox(x: 0, y: 0, width: 0, height: 0))
        let moved = transform.uprightBox(ofSource: PixelBox(x: shift.dx, y: shift.dy, width: 0, height: 0))
        return (moved.x - origin.x, moved.y - origin.y)
    }
}
