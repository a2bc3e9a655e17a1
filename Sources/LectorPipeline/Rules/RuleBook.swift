import Foundation
import LectorProtocol
import LectorSystem

/// One camera's rules: tests each recognized frame's lines (or its line tracks' new
/// settled readings) against them, makes the MATCH messages and hands each match to the
/// rule's hook. Called inside the camera's ordered publish step (one frame at a time,
/// in capture order); SIGHUP may replace the rules from another thread.
public final class RuleBook: @unchecked Sendable {
    /// A rule ready to test, with what it matched last per place (a zone, or a track).
    private final class Rule {
        let spec: RuleSpec
        let expression: RuleExpression
        let hook: HookRunner?
        var lastText: [String: String] = [:]
        /// A search of this rule has given up at the step limit (logged once).
        var exceededLimit = false

        init(spec: RuleSpec, expression: RuleExpression, hook: HookRunner?) {
            self.spec = spec
            self.expression = expression
            self.hook = hook
        }
    }

    public let device: String
    private let logger: Logger
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var rules: [Rule] = []
    /// Every hook runner made (also those of replaced rules), to wait for at exit.
    private var runners: [HookRunner] = []
    /// Told the camera's rule warning (a rule gave up at its step limit), nil when none.
    private var warn: @Sendable (String?) -> Void = { _ in }

    /// - Parameter rules: checked when the configuration was read (valid expressions).
    public init(device: String, rules: [RuleSpec], logger: Logger) {
        self.device = device
        self.logger = logger.with("device", device)
        replace(rules: rules)
    }

    /// Tells `warn` a warning for DEVICES when a rule first gives up at its step limit,
    /// and nil once SIGHUP leaves no such rule.
    public func reportWarnings(to warn: @escaping @Sendable (String?) -> Void) {
        lock.withLock { self.warn = warn }
    }

    /// Whether there is any rule.
    public var isEmpty: Bool { lock.withLock { rules.isEmpty } }

    /// Uses `specs` from the next frame on (SIGHUP). Hooks of the old rules still running
    /// finish; a rule that did not change keeps what it matched last.
    public func replace(rules specs: [RuleSpec]) {
        lock.withLock {
            let old = rules
            rules = specs.compactMap { spec in
                if let same = old.first(where: { $0.spec == spec }) { return same }
                guard let expression = try? RuleExpression(spec.pattern) else {
                    logger.error("rule not used: its expression does not compile", [("rule", spec.qualifiedName)])
                    return nil
                }
                let hook = spec.hook.map { _ in HookRunner(device: device, rule: spec, logger: logger) }
                if let hook { runners.append(hook) }
                return Rule(spec: spec, expression: expression, hook: hook)
            }
        }
        let (exceeded, warn) = lock.withLock { (rules.contains { $0.exceededLimit }, self.warn) }
        if !exceeded { warn(nil) }
    }

    /// The matches in `publication`; each is also handed to its rule's hook (which runs
    /// on a thread of its own: this returns at once).
    public func matches(in publication: Publication) -> [MatchMessage] {
        let rules = lock.withLock { self.rules }
        guard !rules.isEmpty else { return [] }
        let report = publication.text
        // Each line's zone and track.
        var zoneOfTrack: [String: String] = [:]
        var lines: [(line: TextLine, zone: String?, track: String?)] = []
        for block in report.text.blocks {
            for line in block.lines {
                let track = report.lineTracks[line.box]
                if let track, let zone = block.zone { zoneOfTrack[track] = zone }
                lines.append((line, block.zone, track))
            }
        }
        let time = MonotonicInstant.rfc3339(unixTime: report.unixTime)
        var found: [MatchMessage] = []
        for rule in rules {
            if rule.spec.settledOnly {
                for event in publication.tracks where event.kind != .gone {
                    let zone = zoneOfTrack[event.id]
                    guard rule.spec.zone == nil || rule.spec.zone == zone, event.confidence >= rule.spec.minimumConfidence else { continue }
                    if let match = match(rule, text: event.text, zone: zone, place: zone ?? "track \(event.id)", box: event.box,
                                         confidence: event.confidence, track: event.id, report: report, time: time) {
                        found.append(match)
                    }
                }
            } else {
                for (line, zone, track) in lines {
                    guard rule.spec.zone == nil || rule.spec.zone == zone, line.confidence >= rule.spec.minimumConfidence else { continue }
                    if let match = match(rule, text: line.text, zone: zone, place: zone ?? track ?? "line", box: line.box,
                                         confidence: line.confidence, track: track, report: report, time: time) {
                        found.append(match)
                    }
                }
            }
        }
        return found
    }

    /// A MATCH when `text` matches `rule` and differs from what the rule last matched at
    /// `place`; the rule's hook is offered it.
    private func match(_ rule: Rule, text: String, zone: String?, place: String, box: PixelBox, confidence: Double,
                       track: String?, report: TextReport, time: String) -> MatchMessage? {
        let ranges: [Range<Int>?]
        switch rule.expression.firstMatch(in: text) {
        case .noMatch: return nil
        case let .match(found): ranges = found
        case .limitExceeded:
            exceededLimit(rule, text: text)
            return nil
        case .failed:
            logger.once("rule \(rule.spec.qualifiedName) failed", .warning, "rule match failed in ICU", [("rule", rule.spec.qualifiedName)])
            return nil
        }
        guard rule.lastText[place] != text else { return nil }
        rule.lastText[place] = text
        let units = Array(text.utf16)
        let substring = { (range: Range<Int>?) in range.map { String(decoding: units[$0], as: UTF16.self) } ?? "" }
        let message = MatchMessage(device: device, zone: zone, rule: rule.spec.name, text: text,
                                   matched: substring(ranges[0]), groups: ranges.dropFirst().map(substring), box: box,
                                   corners: report.transform.sourceCorners(of: box).map { PixelPoint(x: $0.x, y: $0.y) },
                                   confidence: (confidence * 1000).rounded() / 1000, track: track,
                                   sequence: report.sequence, time: time)
        logger.info("rule matched", [("rule", rule.spec.qualifiedName), ("text", text)])
        rule.hook?.offer(message)
        return message
    }

    /// A search of `rule` on `text` gave up at the step limit: the line is skipped for
    /// this rule; the first time, it is logged and DEVICES warns of it.
    private func exceededLimit(_ rule: Rule, text: String) {
        guard !rule.exceededLimit else { return }
        rule.exceededLimit = true
        logger.warning("rule skipped a line: its match took too many steps (a pattern that backtracks, such as nested quantifiers)",
                       [("rule", rule.spec.qualifiedName), ("pattern", rule.spec.pattern), ("text", String(text.prefix(80)))])
        lock.withLock { warn }("rule \(rule.spec.qualifiedName) skips lines: its match took too many steps (simplify its pattern)")
    }

    /// Waits for the hooks still running (and the one waiting behind each), each at most
    /// its timeout: lectord's exit at the end of its sources.
    public func waitForHooks() {
        for runner in lock.withLock({ runners }) { runner.waitUntilIdle() }
    }

    /// Kills the hooks still running (with their process groups), drops those waiting,
    /// and waits for them to end (a fraction of a second): lectord's exit on SIGTERM.
    public func stopHooks() {
        let runners = lock.withLock { self.runners }
        for runner in runners { runner.stop() }
        for runner in runners { runner.waitUntilIdle() }
    }
}
