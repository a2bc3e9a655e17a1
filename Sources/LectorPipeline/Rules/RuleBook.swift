import Foundation
import LectorProtocol
import LectorSystem

/// One camera's rules: tests each recognized frame's lines (or its line tracks' new
/// settled readings) against them, makes the MATCH messages and hands each match to the
/// rule's hook. Called inside the camera's ordered publish step (one frame at a time,
/// in capture order); SIGHUP may replace the rules from another thread.
public final class RuleBook: @unchecked Sendable {
    /// A rule ready to test, with what it matched last per place (a zone, or a track),
    /// the appearances it announced and its meter's last value.
    private final class Rule {
        let spec: RuleSpec
        let reader: RuleReader
        let hook: HookRunner?
        var lastText: [String: String] = [:]
        var appearances: AppearanceMemory?
        /// Readings a known entry's appearance held back, by track (offered again while in view).
        var heldBack: [String: Sighting] = [:]
        var meter: MeterCheck?
        /// A search of this rule has given up at the step limit (logged once).
        var exceededLimit = false

        init(spec: RuleSpec, reader: RuleReader, hook: HookRunner?) {
            self.spec = spec
            self.reader = reader
            self.hook = hook
            appearances = spec.appearanceSeconds.map(AppearanceMemory.init(repeatAfter:))
            meter = spec.isMeter ? MeterCheck(monotonic: spec.monotonic, maximumRate: spec.maximumRate, resetAfter: spec.resetAfter) : nil
        }

        /// Keeps what `old` (the same rule before a reload) remembered, where it still applies.
        func keep(_ old: Rule) {
            lastText = old.lastText
            if appearances?.repeatAfter == old.appearances?.repeatAfter { appearances = old.appearances }
            if let last = old.meter?.last, meter != nil { meter?.remember(last.value, at: last.time) }
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
                guard let reader = try? RuleReader(spec: spec) else {
                    logger.error("rule not used: its expression does not compile", [("rule", spec.qualifiedName)])
                    return nil
                }
                let hook = spec.hook.map { _ in HookRunner(device: device, rule: spec, logger: logger) }
                if let hook { runners.append(hook) }
                let rule = Rule(spec: spec, reader: reader, hook: hook)
                if let before = old.first(where: { $0.spec.qualifiedName == spec.qualifiedName }) { rule.keep(before) }
                return rule
            }
        }
        let (exceeded, warn) = lock.withLock { (rules.contains { $0.exceededLimit }, self.warn) }
        if !exceeded { warn(nil) }
    }

    /// Gives each meter rule its last accepted value from the history (`accepted`: the
    /// newest accepted MATCH of each of this camera's rules, and how many seconds ago it
    /// was read): a restart is not a new meter, so its next reading is checked against it
    /// and accepted without `unconfirmed`. `now`: the rules' clock now.
    /// - Returns: the rules given a value (qualified names), and the reading each was given.
    @discardableResult
    public func restoreMeters(_ accepted: [(match: MatchMessage, secondsAgo: Double)], now: Double) -> [(rule: String, text: String)] {
        lock.withLock {
            var restored: [(rule: String, text: String)] = []
            for rule in rules where rule.meter != nil && rule.meter?.last == nil {
                guard let found = accepted.first(where: { $0.match.rule == rule.spec.name && $0.match.zone == rule.spec.zone }),
                      rule.spec.display.rejection(of: found.match.matched) == nil,
                      let value = MeterCheck.value(of: found.match.matched) else { continue }
                rule.meter?.remember(value, at: now - max(0, found.secondsAgo))
                restored.append((rule.spec.qualifiedName, found.match.text))
            }
            return restored
        }
    }

    /// The rules' clock now (capture times' monotonic clock, in seconds).
    public static func now() -> Double { seconds(MonotonicInstant.now()) }

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
        let now = Self.seconds(report.captureTime)
        var found: [MatchMessage] = []
        let inView = Set(report.lineTracks.values)
        for rule in rules {
            if rule.appearances != nil {
                for track in inView { rule.appearances?.saw(track: track, now: now) }
                for event in publication.tracks where event.kind == .gone {
                    rule.appearances?.gone(track: event.id, lastSeen: Self.seconds(event.lastSeen))
                    rule.heldBack.removeValue(forKey: event.id)
                }
            }
            var sightings: [Sighting] = []
            if rule.spec.settledOnly {
                // A line read as exactly a known entry needs no vote (a gate opens at once);
                // the track's settled reading is then the same appearance.
                if rule.appearances != nil, rule.spec.known != nil {
                    for (line, zone, track) in lines where rule.spec.zone == nil || rule.spec.zone == zone {
                        let seen = Sighting(line, zone: zone, track: track)
                        guard line.confidence >= rule.spec.minimumConfidence, seen.reading(by: rule.reader)?.known?.entry?.distance == 0 else { continue }
                        sightings.append(seen)
                    }
                }
                for event in publication.tracks where event.kind != .gone {
                    let zone = zoneOfTrack[event.id]
                    guard rule.spec.zone == nil || rule.spec.zone == zone, event.confidence >= rule.spec.minimumConfidence else { continue }
                    // The recognizer's alternatives come with this frame's line of the track, when it reads so.
                    let line = lines.first { $0.track == event.id && $0.line.text == event.text }?.line
                    sightings.append(Sighting(text: event.text, zone: zone, place: zone ?? "track \(event.id)", box: event.box,
                                              confidence: event.confidence, track: event.id,
                                              alternatives: line.map(Sighting.alternatives(of:)) ?? []))
                }
            } else {
                for (line, zone, track) in lines {
                    guard rule.spec.zone == nil || rule.spec.zone == zone, line.confidence >= rule.spec.minimumConfidence else { continue }
                    sightings.append(Sighting(line, zone: zone, track: track))
                }
            }
            if rule.appearances != nil {
                // Readings held back by a known entry's appearance, offered again while in view.
                let offered = Set(sightings.compactMap(\.track))
                for (track, held) in rule.heldBack where inView.contains(track) && !offered.contains(track) {
                    var seen = held
                    seen.box = lines.first { $0.track == track }?.line.box ?? held.box
                    sightings.append(seen)
                }
                // Known entries first: a frame's known plate is the scene's event, not its lettering.
                sightings = Self.knownFirst(sightings, reader: rule.reader)
            }
            if let match = firstValue(of: rule, lines: lines, report: report, time: time, now: now) { found.append(match) }
            for seen in sightings {
                if let match = match(rule, seen, report: report, time: time, now: now) { found.append(match) }
            }
        }
        return found
    }

    /// A line (or a track's settled reading) a rule is tested on.
    fileprivate struct Sighting {
        var text: String
        var zone: String?
        /// What the rule remembers its last match by: the zone, else the track, else `line`.
        var place: String
        var box: PixelBox
        var confidence: Double
        var track: String?
        /// What the recognizer ranked next at characters of `text` (offsets in `text`).
        var alternatives: [CharacterAlternative] = []

        /// A line of the frame (its place: the zone, else the track, else `line`).
        init(_ line: TextLine, zone: String?, track: String?) {
            self.init(text: line.text, zone: zone, place: zone ?? track ?? "line", box: line.box, confidence: line.confidence,
                      track: track, alternatives: Self.alternatives(of: line))
        }

        init(text: String, zone: String?, place: String, box: PixelBox, confidence: Double, track: String?,
             alternatives: [CharacterAlternative] = []) {
            self.text = text
            self.zone = zone
            self.place = place
            self.box = box
            self.confidence = confidence
            self.track = track
            self.alternatives = alternatives
        }

        /// What `reader` takes of it.
        func reading(by reader: RuleReader) -> RuleReader.Reading? { reader.reading(of: text, alternatives: alternatives) }

        /// The alternatives of `line`'s words, by offset in its text (words joined by a space).
        static func alternatives(of line: TextLine) -> [CharacterAlternative] {
            var start = 0
            var all: [CharacterAlternative] = []
            for word in line.words {
                all += word.alternatives.map { CharacterAlternative(offset: start + $0.offset, character: $0.character, probability: $0.probability) }
                start += word.text.count + 1
            }
            return all
        }
    }

    /// A MATCH when `seen` matches `rule` (corrected when it has `alike`) and is news: a
    /// new appearance for a rule that keeps them, else a reading that differs from what
    /// the rule last matched at its place. An accepted match is offered to the rule's hook.
    private func match(_ rule: Rule, _ seen: Sighting, report: TextReport, time: String, now: Double) -> MatchMessage? {
        let spec = rule.spec
        let taken = seen.reading(by: rule.reader)
        if let text = rule.reader.takeExceeded() { exceededLimit(rule, text: text) }
        if rule.reader.takeFailed() {
            logger.once("rule \(spec.qualifiedName) failed", .warning, "rule match failed in ICU", [("rule", spec.qualifiedName)])
        }
        guard let reading = taken else { return nil }
        let text = reading.text
        let known = reading.known
        if let appearances = rule.appearances {
            if known?.entry == nil, appearances.holdsBack(now: now, except: seen.track) {
                if let track = seen.track { rule.heldBack[track] = seen }
                return nil
            }
            if let track = seen.track { rule.heldBack.removeValue(forKey: track) }
            let news = rule.appearances?.admit(identity: known?.entry?.text ?? text, known: known?.entry != nil, track: seen.track, now: now)
            guard news == true else { return nil }
        } else {
            guard rule.lastText[seen.place] != text else { return nil }
        }
        rule.lastText[seen.place] = text
        var rejected: String?
        if spec.checksDigits { rejected = spec.display.rejection(of: reading.matched)?.rawValue }
        if rule.meter != nil, rejected == nil {
            let value = MeterCheck.value(of: reading.matched)
            // The meter's value read again (after another reading in between) is no news.
            if let value, value == rule.meter?.last?.value { return nil }
            rejected = rule.meter?.judge(value, at: now)?.rawValue
        }
        return message(rule, seen, reading, report: report, time: time, rejected: rejected)
    }

    /// The MATCH of `reading`, logged; an accepted one is offered to the rule's hook.
    private func message(_ rule: Rule, _ seen: Sighting, _ reading: RuleReader.Reading, report: TextReport, time: String,
                         rejected: String?) -> MatchMessage {
        let spec = rule.spec
        let text = reading.text
        let message = MatchMessage(device: device, zone: seen.zone, rule: spec.name, text: text,
                                   matched: reading.matched, groups: reading.groups, box: seen.box,
                                   corners: report.transform.sourceCorners(of: seen.box).map { PixelPoint(x: $0.x, y: $0.y) },
                                   confidence: (seen.confidence * 1000).rounded() / 1000, track: seen.track,
                                   sequence: report.sequence, time: time,
                                   read: spec.alike ? seen.text : nil, corrections: spec.alike ? reading.swaps : nil,
                                   known: reading.known, rejected: rejected)
        if let rejected {
            logger.info("rule reading rejected", [("rule", spec.qualifiedName), ("text", text), ("reason", rejected)])
        } else {
            logger.info("rule matched", [("rule", spec.qualifiedName), ("text", text)])
            rule.hook?.offer(message)
        }
        return message
    }

    /// The accepted MATCH of a meter's first value when a line of this frame reads the
    /// value its rule judged last (``MeterCheck/candidate``) for the `reset_after`th frame:
    /// a meter that shows one value for hours has it within a second.
    private func firstValue(of rule: Rule, lines: [(line: TextLine, zone: String?, track: String?)], report: TextReport,
                            time: String, now: Double) -> MatchMessage? {
        guard let meter = rule.meter, meter.last == nil, let candidate = meter.candidate else { return nil }
        for (line, zone, track) in lines where rule.spec.zone == nil || rule.spec.zone == zone {
            guard line.confidence >= rule.spec.minimumConfidence else { continue }
            let seen = Sighting(line, zone: zone, track: track)
            guard let reading = seen.reading(by: rule.reader), rule.spec.display.rejection(of: reading.matched) == nil,
                  MeterCheck.value(of: reading.matched) == candidate.value else { continue }
            guard rule.meter?.saw(candidate.value, at: now) == true else { return nil }
            rule.lastText[seen.place] = reading.text
            return message(rule, seen, reading, report: report, time: time, rejected: nil)
        }
        return nil
    }

    /// `sightings` with those read as a known entry first (nearest first), the others after
    /// in their order.
    private static func knownFirst(_ sightings: [Sighting], reader: RuleReader) -> [Sighting] {
        let distances = sightings.map { $0.reading(by: reader)?.known?.entry?.distance ?? .max }
        return sightings.indices.sorted { (distances[$0], $0) < (distances[$1], $1) }.map { sightings[$0] }
    }

    /// `instant` in seconds (the rules' clock).
    private static func seconds(_ instant: MonotonicInstant) -> Double { Double(instant.nanoseconds) / 1e9 }

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
