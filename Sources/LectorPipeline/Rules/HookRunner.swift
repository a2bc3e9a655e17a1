import Foundation
import LectorProtocol
import LectorSystem

/// Runs one rule's `on_match` program, at most one at a time, on a thread of its own, so
/// that capture and recognition never wait for it. A match that comes while the hook
/// runs waits (only the newest: a rule's hook is not queued up); it starts when the
/// running one ends.
///
/// The program runs without a shell, as lectord's user, with the match in its
/// environment (`LECTOR_DEVICE`, `LECTOR_ZONE`, `LECTOR_RULE`, `LECTOR_TEXT`,
/// `LECTOR_MATCHED`, `LECTOR_GROUP_1`…, `LECTOR_GROUPS`, `LECTOR_CONFIDENCE`, `LECTOR_TIME`,
/// `LECTOR_SEQ`, `LECTOR_BOX`; with `alike` `LECTOR_READ`; for a code its format `LECTOR_CODE`; with a known list
/// `LECTOR_KNOWN`, `LECTOR_KNOWN_NAME`, empty when not known) and as the MATCH line on its standard input; it is killed
/// past the rule's timeout, or at once when lectord stops (``stop()``), with its whole
/// process group (and, in lectord, what it `setsid`'ed: see ``ChildProcess``). Its exit
/// status and standard error are logged; a failure is logged once per change of error
/// (and its end once, when it succeeds again).
final class HookRunner: @unchecked Sendable {
    private let device: String
    private let rule: RuleSpec
    private let logger: Logger
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var running = false
    private var waiting: MatchMessage?
    private var lastProblem: String?
    /// Set by ``stop()``: the running hook is killed, no other starts.
    private var stopped = false
    /// Runs started, for tests and logs.
    private(set) var runs = 0

    init(device: String, rule: RuleSpec, logger: Logger) {
        self.device = device
        self.rule = rule
        self.logger = logger.with("rule", rule.qualifiedName)
    }

    /// Runs the hook for `match` now, or after the running one (replacing a match that
    /// was already waiting). Returns at once.
    func offer(_ match: MatchMessage) {
        condition.lock()
        defer { condition.unlock() }
        if stopped { return }
        if running {
            if waiting != nil { logger.info("hook still running: a waiting match was replaced by a newer one") }
            waiting = match
            return
        }
        running = true
        Thread.detachNewThread { [self] in
            var next: MatchMessage? = match
            while let current = next {
                run(current)
                condition.lock()
                next = waiting
                waiting = nil
                if next == nil {
                    running = false
                    condition.broadcast()
                }
                condition.unlock()
            }
        }
    }

    /// Kills the running hook (its group gets SIGTERM, then SIGKILL ``ChildProcess``'s
    /// stop grace later), drops the waiting match and starts no other; returns at once.
    func stop() {
        condition.lock()
        stopped = true
        waiting = nil
        condition.unlock()
    }

    private var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    /// Waits until no hook runs or waits (each run ends by its timeout, or soon after ``stop()``).
    func waitUntilIdle() {
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
    }

    /// The environment a hook gets: lectord's, with the match's `LECTOR_*` variables.
    static func environment(for match: MatchMessage, base: [String: String]) -> [String: String] {
        var environment = base.filter { !$0.key.hasPrefix("LECTOR_") }
        environment["LECTOR_DEVICE"] = match.device
        environment["LECTOR_ZONE"] = match.zone ?? ""
        environment["LECTOR_RULE"] = match.rule
        environment["LECTOR_TEXT"] = match.text
        environment["LECTOR_MATCHED"] = match.matched
        environment["LECTOR_GROUPS"] = "\(match.groups.count)"
        for (index, group) in match.groups.enumerated() { environment["LECTOR_GROUP_\(index + 1)"] = group }
        environment["LECTOR_CONFIDENCE"] = "\(match.confidence)"
        environment["LECTOR_TIME"] = match.time
        environment["LECTOR_SEQ"] = "\(match.sequence)"
        environment["LECTOR_BOX"] = "\(match.box.x),\(match.box.y),\(match.box.width),\(match.box.height)"
        if let read = match.read { environment["LECTOR_READ"] = read }
        if let code = match.code { environment["LECTOR_CODE"] = code.rawValue }
        if let known = match.known {
            environment["LECTOR_KNOWN"] = known.entry?.text ?? ""
            environment["LECTOR_KNOWN_NAME"] = known.entry?.name ?? ""
        }
        return environment
    }

    private func run(_ match: MatchMessage) {
        guard let path = rule.hook else { return }
        condition.lock()
        runs += 1
        condition.unlock()
        let started = MonotonicInstant.now()
        let problem: String?
        var detail: [(String, String)] = [("text", match.text)]
        do {
            let child = try ChildProcess(path: path, environment: Self.environment(for: match, base: ProcessInfo.processInfo.environment))
            child.sendInput(match.bytes + [0x0A])
            let (ending, errorOutput) = child.finish(timeout: rule.hookTimeout, shouldStop: { isStopped })
            detail += [("status", ending.description), ("ms", "\(Int(MonotonicInstant.now().milliseconds(since: started)))")]
            if !errorOutput.isEmpty { detail.append(("stderr", errorOutput)) }
            switch ending {
            case .exited(0): problem = nil
            case .timedOut where isStopped: problem = "killed: lectord is stopping"
            case .timedOut: problem = "timed out after \(rule.hookTimeout) s and was killed"
            default: problem = ending.description + (errorOutput.isEmpty ? "" : ": \(errorOutput)")
            }
        } catch {
            problem = "cannot start \(path): \(error)"
        }
        condition.lock()
        let changed = problem != lastProblem
        let hadProblem = lastProblem != nil
        lastProblem = problem
        condition.unlock()
        if let problem {
            if changed { logger.warning("hook failed", [("hook", path), ("problem", problem)] + detail) }
        } else if hadProblem {
            logger.notice("hook succeeded again", [("hook", path)] + detail)
        } else {
            logger.info("hook ran", [("hook", path)] + detail)
        }
    }
}
