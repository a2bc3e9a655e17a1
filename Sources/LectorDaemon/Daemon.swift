import Foundation
import LectorCapture
import LectorPipeline
import LectorProtocol
import LectorServer
import LectorSystem
import Synchronization

/// `lectord` itself: starts one ``Camera`` per source, publishes what they recognize,
/// and stops in order on SIGINT/SIGTERM, on `--max-frames`, or when every replay ends.
public final class Daemon: Sendable {
    private let options: DaemonOptions
    private let logger: Logger
    private let stop = StopSignal()
    private let stdoutPublisher: StdoutPublisher?
    /// The command line before the configuration file was merged in, and the file:
    /// what SIGHUP reloads.
    private let commandLine: DaemonOptions
    private let configPath: String?
    /// The options in force: `options`, then what each SIGHUP applied.
    private let effective: Mutex<DaemonOptions>
    /// Each camera's rules, by camera name (SIGHUP replaces their rules).
    private let ruleBooks = Mutex<[String: RuleBook]>([:])
    /// Whether a signal (SIGTERM, SIGINT) stopped the daemon: hooks are then killed, not waited for.
    private let signalled = Atomic<Bool>(false)

    /// - Parameters:
    ///   - options: the options in force (command line merged with the configuration file).
    ///   - commandLine: the command line alone, merged again with the file on SIGHUP.
    ///   - configPath: the configuration file, if any.
    public init(options: DaemonOptions, logger: Logger, commandLine: DaemonOptions? = nil, configPath: String? = nil) {
        self.options = options
        self.logger = logger
        self.commandLine = commandLine ?? options
        self.configPath = configPath
        effective = Mutex(options)
        stdoutPublisher = options.stdout ? StdoutPublisher(maxFrames: options.maxFrames) : nil
    }

    /// Runs until stopped; returns the process exit status.
    public func run() -> Int32 {
        // What a rule's hook setsid's is adopted when the hook ends, and ended with it.
        do { try ChildProcess.adoptOrphans() } catch {
            logger.warning("hooks' detached children cannot be ended with them", [("reason", "\(error)")])
        }
        // The socket first: a second instance is refused before it loads anything.
        let listener: ListeningSocket?
        do {
            listener = try openListener()
        } catch {
            logger.error("cannot serve the socket", [("reason", "\(error)")])
            return 1
        }
        let recorder: MatchRecorder?
        do {
            recorder = try makeRecorder()
        } catch {
            logger.error("cannot keep evidence", [("reason", "\(error)")])
            listener?.close()
            return 1
        }
        defer { recorder?.stop() }
        let targets = PublicationTargets()
        var cameras: [Camera] = []
        var recorders: [FrameRecorder] = []
        defer { for recorder in recorders { recorder.stop() } }
        for spec in options.cameras {
            do {
                cameras.append(try startCamera(spec, targets: targets, recorders: &recorders, matchRecorder: recorder))
            } catch {
                logger.error("cannot start source", [("device", spec.name), ("reason", "\(error)")])
                listener?.close()
                return 1
            }
        }
        // --stdout keeps every camera running and exits when every source has ended.
        let alwaysOn = options.alwaysOn || options.stdout
        let hub = makeHub(cameras: cameras, alwaysOn: alwaysOn)
        targets.hub = hub
        // A camera with rules reads whether or not a client watches (its hooks, history, evidence).
        hub.setRuled(Set(options.cameras.filter { !$0.rules.isEmpty }.map(\.name)))
        let server: SocketServer?
        do {
            server = try makeServer(on: listener, hub: hub, history: recorder)
        } catch {
            return 1
        }
        targets.server = server
        server?.start()
        if alwaysOn { hub.startAll() }
        // Under systemd: READY=1 once what was waiting on the socket is answered (the WATCH of
        // a socket-activating client starts its camera) and the cameras started opened or
        // are lost; STATUS=, honest WATCHDOG=1; nil otherwise.
        if SystemdNotifier.fromEnvironment(ProcessInfo.processInfo.environment) != nil {
            server?.waitUntilSettled(seconds: 2)
            hub.waitForStartsAndStops()
        }
        let systemd = SystemdService.start(hub: hub, logger: logger)
        observeSignals(hub: hub, server: server)
        while !stop.wait(seconds: 3600) {}
        systemd?.stopping()
        shutDown(hub: hub, server: server, cameras: cameras)
        if stdoutPublisher?.failed == true { return 1 }
        return 0
    }
}

extension Daemon {
    /// The listening socket: systemd's (socket activation), else bound at `--socket` or the
    /// standard path (its fallback directory made first); nil with `--stdout` alone.
    private func openListener() throws -> ListeningSocket? {
        guard !options.stdout || options.socketPath != nil else { return nil }
        if let listener = ListeningSocket.fromSystemd() { return listener }
        let path = options.socketPath ?? SocketPath.standard()
        if options.socketPath == nil, SocketPath.isFallback(path) {
            try SocketPath.prepareFallback(SocketPath.fallbackDirectory())
        }
        return try ListeningSocket.bind(path: path, group: options.socketGroup)
    }

    /// What keeps the MATCHes (`--history`, `--evidence`), nil when neither is asked for.
    /// Under systemd (`STATE_DIRECTORY` set, `StateDirectory=lector`) the history is
    /// `$STATE_DIRECTORY/history.sqlite` unless `--history` says otherwise.
    private func makeRecorder() throws(RecordError) -> MatchRecorder? {
        let historyPath = options.historyPath ?? Self.defaultHistoryPath(environment: ProcessInfo.processInfo.environment)
        guard historyPath != nil || options.evidenceDirectory != nil else { return nil }
        return try MatchRecorder(settings: .init(historyPath: historyPath, historyKeepDays: options.historyKeepDays,
                                                 evidenceDirectory: options.evidenceDirectory,
                                                 evidenceMaximumBytes: Int(options.evidenceMaximumMegabytes * 1_048_576),
                                                 evidenceKeepDays: options.evidenceKeepDays), logger: logger)
    }

    /// `$STATE_DIRECTORY/history.sqlite` (its first directory), nil outside systemd.
    static func defaultHistoryPath(environment: [String: String]) -> String? {
        guard let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !state.isEmpty else { return nil }
        return state + "/history.sqlite"
    }

    /// Makes the source and the ``Camera`` of `spec` (its frame recorder with `--record`,
    /// appended to `recorders`; its rules in ``ruleBooks``), whose publications reach the
    /// hub, the server and `--stdout` through `targets`; `matchRecorder` keeps their MATCHes.
    private func startCamera(_ spec: CameraSpec, targets: PublicationTargets, recorders: inout [FrameRecorder],
                             matchRecorder: MatchRecorder?) throws -> Camera {
        let source = try SourceFactory.makeSource(for: spec, logger: logger)
        let publisher = stdoutPublisher
        let stop = self.stop
        var recorder: FrameRecorder?
        if let directory = options.recordDirectory {
            let made = try FrameRecorder(directory: Self.recordDirectory(directory, camera: spec.name, cameras: options.cameras.count),
                                         maximumBytes: options.recordMaximumMegabytes << 20, logger: logger)
            recorders.append(made)
            recorder = made
        }
        let rules = RuleBook(device: spec.name, rules: spec.rules, logger: logger)
        ruleBooks.withLock { $0[spec.name] = rules }
        if let matchRecorder, spec.rules.contains(where: \.isMeter) { restoreMeters(rules, from: matchRecorder) }
        let recognizers = spec.recognizers.resolved(cores: ProcessInfo.processInfo.activeProcessorCount,
                                                    cameras: options.cameras.count)
        let camera = try Camera(source: source, name: spec.name, recognizer: spec.recognizer, recognizers: recognizers,
                                orientation: SourceFactory.orientation(for: spec, source: source), live: spec.live,
                                logger: logger, recorder: recorder, stateChanged: { targets.server?.deviceChanged($0) }) { made in
            var publication = made
            publication.matches = rules.matches(in: made)
            if let matchRecorder {
                publication.matches = matchRecorder.record(publication.matches, frame: made.upright, unixTime: made.text.unixTime)
            }
            targets.hub?.record(publication)
            targets.server?.publish(publication)
            if publisher?.publish(publication) == .finished { stop.raise() }
        }
        rules.reportWarnings { [weak camera] warning in camera?.warnOfRules(warning) }
        // A device not plugged in is not "ready" (its source said so when made).
        if source.absence == nil {
            logger.info("camera ready", [("device", spec.name), ("recognizers", "\(camera.recognizers)"),
                                         ("orientation", camera.orientation.imageOrientation.description)])
        }
        camera.listRules(spec.rules.map(\.info))
        return camera
    }

    /// Gives `rules`' meters their last accepted values from the history (a restart is not
    /// a new meter), logged; a history that cannot be read is logged and the meters start anew.
    private func restoreMeters(_ rules: RuleBook, from recorder: MatchRecorder) {
        do {
            let unixNow = Date().timeIntervalSince1970
            let accepted = try recorder.lastAccepted(device: rules.device).map { ($0.match, unixNow - $0.unixTime) }
            for (name, text) in rules.restoreMeters(accepted, now: RuleBook.now()) {
                logger.info("meter's last value restored from the history", [("device", rules.device), ("rule", name), ("text", text)])
            }
        } catch {
            logger.warning("meters' last values not restored: the history cannot be read", [("device", rules.device), ("reason", error.reason)])
        }
    }

    /// The hub of `cameras`; with `--stdout` it stops the daemon once every camera's source has ended.
    private func makeHub(cameras: [Camera], alwaysOn: Bool) -> CameraHub {
        let ended = Mutex(0)
        let cameraCount = cameras.count
        return CameraHub(cameras: cameras, alwaysOn: alwaysOn, logger: logger) { [stop, options] _ in
            if options.stdout, ended.withLock({ $0 += 1; return $0 }) == cameraCount { stop.raise() }
        }
    }

    /// The socket server on `listener`, nil without one.
    /// - Throws: when it cannot start (said in the log; the listener is closed).
    private func makeServer(on listener: ListeningSocket?, hub: CameraHub, history: MatchRecorder?) throws -> SocketServer? {
        guard let listener else { return nil }
        do {
            return try SocketServer(listener: listener, hub: hub, configuration: options.server, history: history, logger: logger)
        } catch {
            listener.close()
            logger.error("cannot serve the socket", [("reason", "\(error)")])
            throw error
        }
    }

    /// SIGHUP reloads the configuration; SIGINT and SIGTERM stop the daemon.
    private func observeSignals(hub: CameraHub, server: SocketServer?) {
        _ = SignalObserver { [self, stop, logger, server] signal in
            if signal == SIGHUP {
                reload(hub: hub, server: server)
                return
            }
            logger.notice("stopping", [("signal", signal == SIGINT ? "SIGINT" : "SIGTERM")])
            signalled.store(true, ordering: .releasing)
            stop.raise()
        }
    }

    /// Stops in order: the cameras, the rules' hooks still running, the server; then logs
    /// each camera's counts.
    private func shutDown(hub: CameraHub, server: SocketServer?, cameras: [Camera]) {
        // On SIGTERM/SIGINT the exit waits at most half a second for the cameras' threads:
        // what is still running then (image work on a huge frame) ends with the process.
        if !hub.stopAll(within: signalled.load(ordering: .acquiring) ? Self.stopWait : nil) {
            Self.threadsLeftRunning.store(true, ordering: .releasing)
            logger.warning("a camera's recognition was still running at exit: not waited for")
        }
        // Hooks still running: on SIGTERM/SIGINT they are killed (the exit does not wait for
        // a long hook_timeout); at the end of a --stdout replay they finish, each within its timeout.
        let books = ruleBooks.withLock { Array($0.values) }
        if signalled.load(ordering: .acquiring) {
            for rules in books { rules.stopHooks() }
        } else {
            for rules in books { rules.waitForHooks() }
        }
        ChildProcess.endOrphans()
        server?.shutdown()
        for camera in cameras {
            let counts = camera.counters.snapshot
            logger.info("camera stopped", [("device", camera.name), ("captured", "\(counts.captured)"),
                                           ("recognized", "\(counts.recognized)"), ("dropped", "\(counts.dropped)"),
                                           ("rejected", "\(counts.rejected)"), ("unchanged", "\(counts.unchanged)")])
        }
    }
}

extension Daemon {
    /// How long the exit on SIGTERM/SIGINT waits for the cameras' threads, in seconds.
    static let stopWait = 0.5

    /// Whether ``run()`` returned with a camera thread still running (the process must
    /// then end without the static destructors of the libraries that thread may be in).
    public static var leftThreadsRunning: Bool { threadsLeftRunning.load(ordering: .acquiring) }
    private static let threadsLeftRunning = Atomic<Bool>(false)

    /// Where `--record DIR` keeps a camera's frames: DIR itself for one camera, else a
    /// folder per camera named after it (`/` and other odd characters as `_`).
    static func recordDirectory(_ directory: String, camera name: String, cameras: Int) -> String {
        guard cameras > 1 else { return directory }
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
        return directory + "/" + safe.trimmingCharacters(in: CharacterSet(charactersIn: "_"))
    }

    /// SIGHUP: reads the configuration file again and applies, without reopening the
    /// socket or a camera, every option ``DaemonOptionTable`` marks live (orientation,
    /// recognizer settings, stall timeout, always-on, client limits, log level); logs what it
    /// applied and what needs a restart. An invalid file is reported and changes nothing.
    func reload(hub: CameraHub, server: SocketServer?) {
        guard let configPath else {
            logger.notice("SIGHUP: no configuration file to reload")
            return
        }
        let reloaded: DaemonOptions
        do {
            reloaded = try commandLine.merged(with: try ConfigFile.load(path: configPath))
        } catch {
            logger.error("configuration not reloaded", [("file", configPath), ("reason", "\(error)")])
            return
        }
        let current = effective.withLock { $0 }
        var plan = ReloadPlan(current: current, reloaded: reloaded)
        for (index, camera) in plan.effective.cameras.enumerated() {
            guard let live = hub.camera(camera.name) else { continue }
            let before = current.cameras[index]
            if camera.orientation != before.orientation {
                live.orientation.replace(with: SourceFactory.orientation(for: camera, source: live.source))
            }
            if camera.recognizer != before.recognizer {
                do {
                    try live.replaceRecognizer(options: camera.recognizer)
                } catch {
                    logger.error("recognizer settings not applied", [("device", camera.name), ("reason", "\(error)")])
                    plan.effective.cameras[index].recognizer = before.recognizer
                    plan.applied.removeAll { $0.hasPrefix("\(camera.name): ") && Self.recognizerKeys.contains(String($0.dropFirst(camera.name.count + 2))) }
                }
            }
            if camera.live != before.live {
                live.updateLive(camera.live)
            }
            if camera.rules != before.rules {
                ruleBooks.withLock { $0[camera.name] }?.replace(rules: camera.rules)
                live.listRules(camera.rules.map(\.info))
            }
            if camera.capture.stallTimeout != before.capture.stallTimeout {
                (live.source as? V4L2Source)?.setStallTimeout(camera.capture.stallTimeout)
                (live.source as? LibcameraSource)?.setStallTimeout(camera.capture.stallTimeout)
                (live.source as? NetworkSource)?.setStallTimeout(camera.capture.stallTimeout)
            }
        }
        hub.setAlwaysOn(plan.effective.alwaysOn || plan.effective.stdout)
        hub.setRuled(Set(plan.effective.cameras.filter { !$0.rules.isEmpty }.map(\.name)))
        server?.reconfigure(plan.effective.server)
        logger.level = plan.effective.logLevel
        effective.withLock { $0 = plan.effective }
        logger.notice("configuration reloaded", [("file", configPath),
                                                  ("applied", plan.applied.isEmpty ? "nothing changed" : plan.applied.joined(separator: ","))])
        if !plan.needsRestart.isEmpty {
            logger.warning("some changes take effect only after a restart", [("changed", plan.needsRestart.joined(separator: ","))])
        }
    }

    /// The keys of the recognizer's settings (all applied together or not at all).
    private static let recognizerKeys: Set<String> = Set(DaemonOptionTable.options.filter { $0.group == .recognition }.compactMap(\.key))
}

/// Where the cameras' publish and state callbacks deliver; set once the hub and the
/// server exist (the cameras are made first).
private final class PublicationTargets: Sendable {
    private let state = Mutex<(hub: CameraHub?, server: SocketServer?)>((nil, nil))

    var hub: CameraHub? {
        get { state.withLock { $0.hub } }
        set { state.withLock { $0.hub = newValue } }
    }

    var server: SocketServer? {
        get { state.withLock { $0.server } }
        set { state.withLock { $0.server = newValue } }
    }
}

/// `--stdout`: writes each recognized frame's TEXT and FRAME lines, and counts frames
/// for `--max-frames`.
final class StdoutPublisher: Sendable {
    enum Outcome { case published, finished }

    private struct State {
        var published = 0
        var failed = false
    }

    private let maxFrames: Int?
    private let state = Mutex(State())

    init(maxFrames: Int?) { self.maxFrames = maxFrames }

    var failed: Bool { state.withLock { $0.failed } }

    /// Writes the lines unless `--max-frames` were already written; serialised so lines
    /// of several cameras never interleave.
    func publish(_ publication: Publication) -> Outcome {
        state.withLock { state in
            if state.failed { return .finished }
            if let maxFrames, state.published >= maxFrames { return .finished }
            do throws(SystemError) {
                try LineWriter.writeLine(publication.textLine, to: 1)
                try LineWriter.writeLine(publication.frame.message.bytes, to: 1)
                for track in publication.trackMessages { try LineWriter.writeLine(track.bytes, to: 1) }
                for match in publication.matches { try LineWriter.writeLine(match.bytes, to: 1) }
            } catch {
                state.failed = error.errno != EPIPE  // a reader that left is a normal end
                return .finished
            }
            state.published += 1
            if let maxFrames, state.published >= maxFrames { return .finished }
            return .published
        }
    }
}
