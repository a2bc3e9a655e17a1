import Foundation
import LectorProtocol
import LectorSystem
import Synchronization

/// All cameras of a daemon, and what the server needs to know about them: the latest
/// publication of each (POLL, SNAPSHOT), recent timings (STATUS), and who watches them.
///
/// "Only when needed": a camera runs while some client watches it, always when the hub is
/// always-on, and always when it has rules (its rules, hooks, history and evidence are
/// its users: a gate opens with nobody watching). Starting and stopping happen on a
/// serial queue of their own, so the server thread that asks never waits for a camera.
public final class CameraHub: Sendable {
    /// One camera as the hub keeps it.
    public struct Entry: Sendable {
        public let camera: Camera
        /// The camera's name (path) in messages.
        public var name: String { camera.name }
    }

    /// Per-camera mutable state, guarded by ``state``.
    private struct DeviceState {
        var latest: Publication?
        var watched = false
        /// It has rules: it reads whether or not a client watches.
        var ruled = false
        /// A start was asked for (queued on `control`) and has not been made yet.
        var starting = false
        var timings = TimingWindow()
    }

    public let entries: [Entry]
    /// Whether cameras run even when nobody watches them (SIGHUP may change it).
    public var alwaysOn: Bool { alwaysOnFlag.load(ordering: .sequentiallyConsistent) }
    private let alwaysOnFlag: Atomic<Bool>
    public let started = MonotonicInstant.now()
    private let state: Mutex<[String: DeviceState]>
    private let control = DispatchQueue(label: "lector.camera-control")
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    /// Called when a run of a camera ends by itself (a replay ran out), not by a stop.
    private let sourceEnded: @Sendable (String) -> Void

    public init(cameras: [Camera], alwaysOn: Bool, logger: Logger, sourceEnded: @escaping @Sendable (String) -> Void = { _ in }) {
        entries = cameras.map(Entry.init)
        alwaysOnFlag = Atomic(alwaysOn)
        self.logger = logger
        self.sourceEnded = sourceEnded
        state = Mutex(Dictionary(uniqueKeysWithValues: cameras.map { ($0.name, DeviceState()) }))
    }

    /// The camera called `name`, or else the one whose source is `name` (a camera named
    /// `kitchen` also answers to its `/dev/video0`).
    public func camera(_ name: String) -> Camera? {
        entries.first { $0.name == name }?.camera ?? entries.first { $0.camera.source.name == name }?.camera
    }

    /// Names, in the order given.
    public var names: [String] { entries.map(\.name) }

    /// Tells the hub which cameras have rules (at start, and after SIGHUP): those run
    /// whether or not a client watches; one that no longer has any stops when nobody
    /// watches it (both asynchronously).
    public func setRuled(_ names: Set<String>) {
        let changed: [String] = state.withLock { table in
            var changed: [String] = []
            for (name, device) in table where device.ruled != names.contains(name) {
                table[name]?.ruled = names.contains(name)
                changed.append(name)
            }
            return changed
        }
        guard !changed.isEmpty else { return }
        control.async { [self] in
            for name in changed {
                guard let camera = camera(name), !stopping.load(ordering: .sequentiallyConsistent) else { continue }
                let wanted = isWanted(name)
                if wanted && !camera.isRunning {
                    logger.info("camera has rules, starting", [("device", name)])
                    start(camera)
                } else if !wanted && camera.isRunning {
                    logger.info("camera has no rules and nobody watches it, stopping", [("device", name)])
                    camera.stop()
                }
            }
        }
    }

    /// Whether `name` has rules (it runs with nobody watching).
    public func isRuled(_ name: String) -> Bool { state.withLock { $0[name]?.ruled ?? false } }

    /// Whether `name` should run now: always-on, it has rules, or a client watches it.
    private func isWanted(_ name: String) -> Bool {
        alwaysOn || state.withLock { ($0[name]?.ruled ?? false) || ($0[name]?.watched ?? false) }
    }

    /// Why `name` runs (STATUS `running_reason`), nil when it does not: `always_on`,
    /// `rules` (it reads with nobody watching), or `watched`.
    public func runningReason(_ name: String) -> String? {
        guard camera(name)?.isRunning == true else { return nil }
        if alwaysOn { return "always_on" }
        let (ruled, watched) = state.withLock { ($0[name]?.ruled ?? false, $0[name]?.watched ?? false) }
        return ruled ? "rules" : watched ? "watched" : nil
    }

    /// Always-on: starts every camera now.
    public func startAll() {
        for entry in entries { start(entry.camera) }
    }

    /// Turns always-on on (every camera starts) or off (cameras nobody watches stop),
    /// asynchronously like ``setWatched(_:)``: SIGHUP's `always_on`.
    public func setAlwaysOn(_ on: Bool) {
        guard alwaysOnFlag.exchange(on, ordering: .sequentiallyConsistent) != on else { return }
        control.async { [self] in
            for entry in entries where !stopping.load(ordering: .sequentiallyConsistent) {
                let wanted = isWanted(entry.name)
                if on && !entry.camera.isRunning {
                    start(entry.camera)
                } else if !on && !wanted && entry.camera.isRunning {
                    logger.info("camera unwatched, stopping", [("device", entry.name)])
                    entry.camera.stop()
                }
            }
        }
    }

    /// Stops every camera, in parallel; returns once all have stopped, or, with
    /// `seconds`, when that long has passed (see ``Camera/stop(within:)``).
    /// - Returns: whether every camera's threads have ended.
    @discardableResult
    public func stopAll(within seconds: Double? = nil) -> Bool {
        stopping.store(true, ordering: .sequentiallyConsistent)
        control.sync {}  // let a start or stop in progress finish first
        let running = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: entries.count) {
            if !entries[$0].camera.stop(within: seconds) { running.add(1, ordering: .relaxed) }
        }
        return running.load(ordering: .relaxed) == 0
    }

    /// Tells the hub which cameras are watched now. Cameras that became watched start,
    /// those no longer watched stop (both asynchronously). Ignored when always-on.
    public func setWatched(_ names: Set<String>) {
        let changed: [(String, Bool)] = state.withLock { table in
            var changed: [(String, Bool)] = []
            for (name, _) in table {
                let watched = names.contains(name)
                if table[name]?.watched != watched {
                    table[name]?.watched = watched
                    if watched && !alwaysOn { table[name]?.starting = true }
                    changed.append((name, watched))
                }
            }
            return changed
        }
        guard !alwaysOn, !changed.isEmpty else { return }
        control.async { [self] in
            for (name, _) in changed {
                guard let camera = camera(name), !stopping.load(ordering: .sequentiallyConsistent) else { continue }
                // Decide on the newest wish, not on the one that queued this.
                let watched = state.withLock { $0[name]?.watched ?? false }
                if watched && !camera.isRunning {
                    logger.info("camera watched, starting", [("device", name)])
                    start(camera)
                } else if !watched && camera.isRunning && !isRuled(name) {
                    logger.info("camera unwatched, stopping", [("device", name)])
                    camera.stop()
                }
                state.withLock { $0[name]?.starting = false }
            }
        }
    }

    /// Whether `name` is about to start: watched, its start queued but not yet made.
    public func isStarting(_ name: String) -> Bool { state.withLock { $0[name]?.starting ?? false } }

    /// Waits until the starts and stops asked for so far have been made.
    public func waitForStartsAndStops() { control.sync {} }

    /// Whether a client watches `name`.
    public func isWatched(_ name: String) -> Bool { state.withLock { $0[name]?.watched ?? false } }

    private func start(_ camera: Camera) {
        let name = camera.name
        camera.start { [self] in
            // A run that ended while still wanted ended by itself.
            let wanted = isWanted(name)
            if wanted && !stopping.load(ordering: .sequentiallyConsistent) {
                logger.info("source ended", [("device", name)])
                sourceEnded(name)
            }
        }
    }

    /// Records a camera's publication (on its recognizer thread): kept as the latest
    /// for POLL and SNAPSHOT, and its timings for STATUS.
    public func record(_ publication: Publication) {
        state.withLock { table in
            table[publication.text.device]?.latest = publication
            table[publication.text.device]?.timings.add(publication.frame, at: .now())
        }
    }

    /// The latest publication of `name`.
    public func latest(_ name: String) -> Publication? { state.withLock { $0[name]?.latest } }

    /// Recent timings of `name`.
    public func timings(_ name: String) -> TimingWindow { state.withLock { $0[name]?.timings ?? TimingWindow() } }
}
