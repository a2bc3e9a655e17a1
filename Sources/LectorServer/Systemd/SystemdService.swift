import Foundation
import LectorPipeline
import LectorProtocol
import LectorSystem
import Synchronization

/// lectord's side of a `Type=notify` systemd service: tells systemd when start-up is
/// finished (`READY=1`), keeps `STATUS=` current with each camera's state, frame rate and
/// latency, sends `WATCHDOG=1` only while ``CameraHealth`` says every streaming camera
/// delivers frames, and says `STOPPING=1` at shutdown.
///
/// Outside systemd (`$NOTIFY_SOCKET` unset) ``start(hub:logger:environment:)`` returns
/// nil and nothing is sent. A failed send is logged once and never stops the daemon.
public final class SystemdService: Sendable {
    /// How the supervisor is timed; derived from `WatchdogSec=`.
    public struct Timing: Equatable, Sendable {
        /// Seconds between two looks at the cameras (and `WATCHDOG=1`s while healthy).
        public var tick: Double
        /// A streaming camera without a new frame for this long withholds the watchdog.
        public var stallSeconds: Double
        /// How long start-up waits for running cameras to leave `opening`.
        public var readyTimeout: Double

        public init(tick: Double, stallSeconds: Double, readyTimeout: Double) {
            self.tick = tick
            self.stallSeconds = stallSeconds
            self.readyTimeout = readyTimeout
        }

        /// Pings four times per watchdog interval (at most every 2 s); a camera is stalled
        /// after half the interval without a frame, so systemd acts within 1.5 intervals of
        /// the last frame. Without a watchdog: status every 2 s, stalled after 10 s.
        public static func forWatchdog(_ interval: Double?) -> Timing {
            guard let interval else { return Timing(tick: 2, stallSeconds: 10, readyTimeout: 30) }
            return Timing(tick: min(2, max(0.05, interval / 4)), stallSeconds: max(0.1, interval / 2), readyTimeout: 30)
        }
    }

    private struct State {
        var health: CameraHealth
        var rates = FrameRateMeter()
        var lastStatus = ""
        var wasHealthy = true
        var sendFailed = false
    }

    private let notifier: SystemdNotifier
    private let watchdog: Double?
    private let timing: Timing
    private let sample: @Sendable () -> [CameraSample]
    private let logger: Logger
    private let state: Mutex<State>
    private let stop = StopSignal()
    private let finished = DispatchGroup()

    /// - Parameters:
    ///   - notifier: Where to send.
    ///   - watchdog: `WatchdogSec=` in seconds, or nil.
    ///   - timing: Tick, stall limit and ready timeout.
    ///   - logger: For withheld watchdogs and failed sends.
    ///   - sample: Reads every camera's state and counters; called on the supervisor thread.
    public init(notifier: SystemdNotifier, watchdog: Double?, timing: Timing, logger: Logger,
                sample: @escaping @Sendable () -> [CameraSample]) {
        self.notifier = notifier
        self.watchdog = watchdog
        self.timing = timing
        self.logger = logger
        self.sample = sample
        state = Mutex(State(health: CameraHealth(stallSeconds: timing.stallSeconds)))
    }

    /// Starts the systemd side of `lectord` once its socket listens and its cameras have
    /// been started: waits (at most ``Timing/readyTimeout``) until every running camera
    /// has opened or reported itself lost, sends `READY=1` with the first status, and
    /// starts the status/watchdog thread. Returns nil outside systemd.
    ///
    /// - Parameters:
    ///   - hub: The daemon's cameras.
    ///   - logger: The daemon's logger.
    ///   - environment: The process environment (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, `WATCHDOG_PID`).
    public static func start(hub: CameraHub, logger: Logger,
                             environment: [String: String] = ProcessInfo.processInfo.environment) -> SystemdService? {
        guard let notifier = SystemdNotifier.fromEnvironment(environment) else { return nil }
        let watchdog = WatchdogSettings.interval(environment: environment)
        let service = SystemdService(notifier: notifier, watchdog: watchdog, timing: .forWatchdog(watchdog),
                                     logger: logger.with("component", "systemd")) { [hub] in Self.samples(of: hub) }
        service.waitUntilSettled { hub.entries.filter { $0.camera.isRunning }.map { $0.camera.deviceInfo.state } }
        service.start()
        return service
    }

    /// Reads `hub`'s cameras: state, counters and median latency (rates are measured by
    /// the supervisor from the counters).
    public static func samples(of hub: CameraHub) -> [CameraSample] {
        hub.status().map(\.sample)
    }

    /// Waits until no state from `states` is `opening` (nor `idle`: a camera that was
    /// started a moment ago has not reported yet), or until ``Timing/readyTimeout``.
    func waitUntilSettled(_ states: @Sendable () -> [CameraState]) {
        let deadline = MonotonicInstant.now().adding(milliseconds: timing.readyTimeout * 1000)
        while MonotonicInstant.now() < deadline {
            if states().allSatisfy({ $0 == .streaming || $0 == .lost }) { return }
            _ = stop.wait(seconds: 0.05)
        }
        logger.warning("cameras still opening; telling systemd ready anyway",
                       [("seconds", "\(timing.readyTimeout)")])
    }

    /// Sends `READY=1` with the first status and starts the thread.
    public func start() {
        let now = MonotonicInstant.now()
        let samples = sample()
        let text = state.withLock { state in
            state.health.observe(samples, at: now)
            state.lastStatus = ServiceStatusText.render(state.rates.measure(samples, at: now))
            return state.lastStatus
        }
        var first: [ServiceNotification] = [.ready, .status(text)]
        if watchdog != nil { first.append(.watchdog) }
        deliver(first)
        if let watchdog { logger.info("systemd watchdog armed", [("seconds", "\(watchdog)")]) }
        finished.enter()
        Thread.detachNewThread { [self] in
            while !stop.wait(seconds: timing.tick) { tick() }
            finished.leave()
        }
    }

    /// One look at the cameras: `STATUS=` when it changed, `WATCHDOG=1` when healthy.
    func tick(at now: MonotonicInstant = .now()) {
        let samples = sample()
        let notifications: [ServiceNotification] = state.withLock { state in
            state.health.observe(samples, at: now)
            let stalled = state.health.stalled(at: now)
            var out: [ServiceNotification] = []
            let text = ServiceStatusText.render(state.rates.measure(samples, at: now), stalled: stalled)
            if text != state.lastStatus {
                state.lastStatus = text
                out.append(.status(text))
            }
            let healthy = stalled.isEmpty
            if healthy != state.wasHealthy {
                state.wasHealthy = healthy
                if healthy {
                    logger.notice("every streaming camera delivers frames again; watchdog resumed")
                } else {
                    let names = stalled.map { "\($0.name) (\(Int($0.seconds)) s)" }.joined(separator: ", ")
                    logger.error("camera delivers no frames; withholding the systemd watchdog", [("stalled", names)])
                }
            }
            if healthy && watchdog != nil { out.append(.watchdog) }
            return out
        }
        deliver(notifications)
    }

    /// Sends `STOPPING=1` and ends the thread; call when shutdown begins.
    public func stopping() {
        stop.raise()
        finished.wait()
        deliver([.stopping, .status("stopping")])
    }

    private func deliver(_ notifications: [ServiceNotification]) {
        do {
            try notifier.send(notifications)
        } catch {
            let first = state.withLock { state in
                defer { state.sendFailed = true }
                return !state.sendFailed
            }
            if first { logger.warning("cannot notify systemd", [("reason", "\(error)")]) }
        }
    }
}
