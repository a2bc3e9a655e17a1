import Foundation
import LectorCapture
import LectorEngine
import LectorImaging
import LectorLive
import LectorProtocol
import LectorRecognition
import LectorSystem
import Synchronization

/// One camera (or replay): a frame source on one thread, a pool of recognizer threads
/// (``RecognitionLoop``), the latest-frame mailbox between them. Cameras share nothing, so one that stalls or fails
/// never delays another.
///
/// A camera can be started and stopped again and again (it runs only while watched):
/// each run has its own stop signal and completion group.
public final class Camera: @unchecked Sendable {
    // Set in init and never changed; `currentRun` is guarded by its mutex.
    public let name: String
    public let source: any FrameSource
    public let counters = FrameCounters()
    public let orientation: OrientationControl
    private let mailbox = LatestFrameMailbox()
    private let loop: RecognitionLoop
    /// Folds captured frames into a stack (live text); nil with `--stack off --gate off`.
    private let stacker: FrameStacker?
    private let currentRun = Mutex<Run?>(nil)
    private let logger: Logger
    private let info: DeviceState
    private let stateChanged: @Sendable (DeviceInfo) -> Void
    /// `--record`: where every captured frame is also kept.
    public let recorder: FrameRecorder?

    /// - Parameters:
    ///   - recognizers: recognizer threads, each with its own Tesseract engine (a
    ///     source paced by its recognizer, a replay without `--fps`, gets one: it loses
    ///     no frame, and results that finish out of order would be dropped).
    ///   - publishCodes: called on a recognizer thread with the codes that came into view
    ///     in a frame (CODE messages), before its text is read; must not block.
    ///   - publish: called on a recognizer thread for every recognized frame, one call at a
    ///     time, in capture order; must not block.
    ///   - stateChanged: called on the source thread when the device opens, streams, is lost or ends.
    ///   - name: the camera's name in messages, requests and logs (`[camera NAME]`); nil: the source's.
    ///   - holdsCaptured: each frame read stays borrowed as captured until published
    ///     (``Publication/held``): evidence in colour (`--evidence`).
    public init(source: any FrameSource, name: String? = nil, recognizer options: RecognizerOptions, recognizers: Int = 1,
                orientation: OrientationSettings, live: LiveSettings = LiveSettings(), holdsCaptured: Bool = false, logger: Logger,
                recorder: FrameRecorder? = nil, stateChanged: @escaping @Sendable (DeviceInfo) -> Void = { _ in },
                publishCodes: @escaping @Sendable (CodePublication) -> Void = { _ in },
                publish: @escaping @Sendable (Publication) -> Void) throws(RecognitionError) {
        let name = name ?? source.name
        self.name = name
        self.recorder = recorder
        let info = DeviceState(DeviceInfo(path: source.name, state: .idle, name: name), name: name,
                               zones: options.zones.isEmpty ? nil : options.zones.map { $0.info(defaultLanguage: options.baseLanguage, problem: nil) })
        self.info = info
        self.stateChanged = stateChanged
        self.source = source
        self.orientation = OrientationControl(orientation)
        self.logger = logger.with("device", name)
        let colorPreview = ColorPreviewDemand()
        let options = Self.reading(options, from: source)
        // A replay the recognizer paces reads every frame: a frame of its own is a scene at once.
        // So is a frame of a source that decodes key frames only while still (a network
        // camera): the frame confirming a change would otherwise be the next key frame.
        let restartAfter = source.isPacedByRecognizer || source.sceneHint != nil ? 1 : 2
        stacker = live.usesStacker ? FrameStacker(capacity: live.stack ?? 1, restartAfter: restartAfter,
                                                  colorPreview: colorPreview, holdsCaptured: holdsCaptured, logger: self.logger) : nil
        loop = try RecognitionLoop(device: name, options: options,
                                   recognizers: source.isPacedByRecognizer ? 1 : recognizers, live: live, colorPreview: colorPreview, holdsCaptured: holdsCaptured,
                                   mailbox: mailbox, counters: counters, orientation: self.orientation, logger: logger,
                                   warn: { warning in if let changed = info.warn(warning) { stateChanged(changed) } },
                                   reportZones: { zones in if let changed = info.setZones(zones) { stateChanged(changed) } },
                                   sceneHint: source.sceneHint, publishCodes: publishCodes, publish: publish)
        // `rotation auto` needs Tesseract's OSD model: said at start rather than at the first frame.
        if self.orientation.isAutomatic { try loop.autoOrientation.prepare() }
        _ = info.setLayout(options.zones.isEmpty ? loop.pool.layout.layout.name : nil, languages: loop.pool.installedLanguages)
        _ = info.setCodes(CodeWatch.formats(options))
    }

    /// `options` for frames from `source`: a file read offline (paced by its recognizer)
    /// is read whole unless a deadline was given.
    private static func reading(_ options: RecognizerOptions, from source: any FrameSource) -> RecognizerOptions {
        var options = options
        options.readsWhole = source.isPacedByRecognizer
        return options
    }

    /// One start-to-end of the two threads.
    private struct Run {
        let stop = StopSignal()
        let finished = DispatchGroup()
    }

    /// Colour previews asked for: the recognizer keeps captured frames only then.
    public var colorPreview: ColorPreviewDemand { loop.colorPreview }

    /// Whether the threads of a run are active (started and not yet stopped).
    public var isRunning: Bool { currentRun.withLock { $0 != nil } }

    /// Starts the source and recognizer threads; does nothing when they run already.
    /// - Parameter onEnd: called once both threads have ended (the source ran out, or stop()).
    public func start(onEnd: @escaping @Sendable () -> Void = {}) {
        let run = Run()
        let started = currentRun.withLock { current in
            if current != nil { return false }
            current = run
            return true
        }
        guard started else { return }
        let stopSignal = run.stop
        let finished = run.finished
        mailbox.reopen()
        loop.resume()
        stacker?.reset()  // a new run may look at another scene
        let sink = CameraFrameSink(mailbox: mailbox, counters: counters, stacker: stacker, recorder: recorder) { [self] newInfo in
            stateChanged(info.report(newInfo))
        }
        finished.enter()
        for _ in 0..<loop.recognizers { finished.enter() }
        Thread.detachNewThread { [self] in
            Thread.current.name = "lector-capture"
            do {
                try source.run(into: sink, stop: stopSignal)
            } catch {
                logger.error("source failed", [("reason", "\(error)")])
            }
            // The source ended: let the recognizer finish what is waiting, then close.
            _ = mailbox.waitUntilEmpty()
            if mailbox.close() { counters.countDropped() }
            finished.leave()
        }
        for slot in 0..<loop.recognizers {
            Thread.detachNewThread { [self] in
                Thread.current.name = "lector-recog-\(slot)"  // 15 characters at most (Linux)
                loop.run(slot: slot)
                finished.leave()
            }
        }
        finished.notify(queue: .global()) { [self] in
            currentRun.withLock { if $0?.stop === stopSignal { $0 = nil } }
            onEnd()
        }
    }

    /// Stops the threads: the source stops, recognitions in progress are cancelled,
    /// a waiting frame is given back. Returns once all have ended, or, with `seconds`,
    /// when that long has passed (lectord's exit on SIGTERM: work that cannot be cut short,
    /// such as turning a 16-megapixel frame, is not waited for).
    /// - Returns: whether every thread has ended.
    @discardableResult
    public func stop(within seconds: Double? = nil) -> Bool {
        guard let run = currentRun.withLock({ $0 }) else { return true }
        run.stop.raise()
        if mailbox.close() { counters.countDropped() }
        loop.cancel()
        if let seconds {
            guard run.finished.wait(timeout: .now() + seconds) == .success else { return false }
        } else {
            run.finished.wait()
        }
        currentRun.withLock { if $0?.stop === run.stop { $0 = nil } }
        return true
    }

    /// The recognizer settings in force (SIGHUP changes them).
    public var recognizerOptions: RecognizerOptions { loop.recognizerOptions }

    /// Recognizes the following frames with `options` (SIGHUP), without stopping the camera.
    /// - Throws: when Tesseract cannot start with them; the camera goes on as before.
    public func replaceRecognizer(options: RecognizerOptions) throws(RecognitionError) {
        let before = loop.recognizerOptions
        let options = Self.reading(options, from: source)
        try loop.replaceRecognizer(options: options)
        // New zones are listed at once (a camera nobody watches reads no frame); whether
        // they fit is said again with the next frame.
        if options.zones != before.zones || options.language != before.language {
            loop.forgetZones()
            let zones = options.zones.isEmpty ? nil : options.zones.map { $0.info(defaultLanguage: options.baseLanguage, problem: nil) }
            if let changed = info.setZones(zones) { stateChanged(changed) }
        }
        if let changed = info.setLayout(options.zones.isEmpty ? loop.pool.layout.layout.name : nil,
                                        languages: loop.pool.installedLanguages) {
            stateChanged(changed)
        }
        if let changed = info.setCodes(CodeWatch.formats(options)) { stateChanged(changed) }
    }

    /// Lists `rules` in the camera's DEVICE entry (at start and on SIGHUP); watchers are
    /// told when they changed.
    public func listRules(_ rules: [RuleInfo]) {
        if let changed = info.setRules(rules.isEmpty ? nil : rules) { stateChanged(changed) }
    }

    /// Gate and line-track settings for the next frames (SIGHUP). The stack's size is
    /// fixed when the camera is made.
    public func updateLive(_ live: LiveSettings) {
        loop.updateLive(live)
    }

    /// Recognizer threads (and Tesseract engines) of this camera.
    public var recognizers: Int { loop.recognizers }

    /// Shows `warning` in DEVICES while the recognizer has none of its own: a rule of the
    /// camera's that gives up at its step limit (nil: none does).
    public func warnOfRules(_ warning: String?) {
        if let changed = info.warnOfRules(warning) { stateChanged(changed) }
    }

    /// The latest state the source reported.
    /// A camera not opened (idle) whose device is missing is shown lost, with why.
    public var deviceInfo: DeviceInfo {
        var current = info.current
        if current.state == .idle, let absence = source.absence {
            current.state = .lost
            current.error = absence
        }
        return current
    }
}

/// A camera's latest state as its source reported it, with its recognizer's warning (or
/// else its rules').
/// What a source reports is relabelled: `path` stays the source's, `name` becomes the
/// camera's name and the source's own description (a V4L2 card name) moves to `card`.
private final class DeviceState: Sendable {
    private let state: Mutex<(info: DeviceInfo, warning: String?, ruleWarning: String?, zones: [ZoneInfo]?, layout: String?,
                              languages: [String]?, rules: [RuleInfo]?, codes: [CodeFormat]?)>
    private let name: String

    init(_ info: DeviceInfo, name: String, zones: [ZoneInfo]?) {
        state = Mutex((info, nil, nil, zones, nil, nil, nil, nil))
        self.name = name
    }

    /// Stores the zones as the recognizer last found them; returns the new state when they changed.
    func setZones(_ zones: [ZoneInfo]?) -> DeviceInfo? {
        state.withLock { state in
            guard state.zones != zones else { return nil }
            state.zones = zones
            return Self.merged(state)
        }
    }

    /// Stores the camera's rules; returns the new state when they changed.
    func setRules(_ rules: [RuleInfo]?) -> DeviceInfo? {
        state.withLock { state in
            guard state.rules != rules else { return nil }
            state.rules = rules
            return Self.merged(state)
        }
    }

    /// Stores the layout the recognizers read with and, with `lang auto`, the languages
    /// installed; returns the new state when either changed.
    func setLayout(_ layout: String?, languages: [String]?) -> DeviceInfo? {
        state.withLock { state in
            guard state.layout != layout || state.languages != languages else { return nil }
            state.layout = layout
            state.languages = languages
            return Self.merged(state)
        }
    }

    /// Stores the formats of the codes the camera reads; returns the new state when they changed.
    func setCodes(_ codes: [CodeFormat]?) -> DeviceInfo? {
        state.withLock { state in
            guard state.codes != codes else { return nil }
            state.codes = codes
            return Self.merged(state)
        }
    }

    var current: DeviceInfo { state.withLock { Self.merged($0) } }

    /// Stores what the source reports; returns it with the warning.
    func report(_ info: DeviceInfo) -> DeviceInfo {
        var info = info
        if info.card == nil { info.card = info.name }
        info.name = name
        return state.withLock { state in
            state.info = info
            return Self.merged(state)
        }
    }

    /// Stores the recognizer's warning; returns the new state when it changed.
    func warn(_ warning: String?) -> DeviceInfo? {
        state.withLock { state in
            guard state.warning != warning else { return nil }
            state.warning = warning
            return Self.merged(state)
        }
    }

    /// Stores the rules' warning; returns the new state when it changed.
    func warnOfRules(_ warning: String?) -> DeviceInfo? {
        state.withLock { state in
            guard state.ruleWarning != warning else { return nil }
            state.ruleWarning = warning
            return Self.merged(state)
        }
    }

    private static func merged(_ state: (info: DeviceInfo, warning: String?, ruleWarning: String?, zones: [ZoneInfo]?, layout: String?,
                                         languages: [String]?, rules: [RuleInfo]?, codes: [CodeFormat]?)) -> DeviceInfo {
        var info = state.info
        info.warning = state.warning ?? state.ruleWarning
        info.zones = state.zones
        info.layout = state.layout
        info.languages = state.languages
        info.rules = state.rules
        info.codes = state.codes
        return info
    }
}
