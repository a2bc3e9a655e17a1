import Foundation
import LectorProtocol

/// What one rule makes of a line's text: whether its expression matches (the one place
/// the expression runs), the look-alike correction of a rule with `alike`, the decimal
/// point its display places (`decimals`), and the entry of its known list. Not thread-safe: used by its rule book's publish step only.
final class RuleReader {
    /// A text the rule takes.
    struct Reading: Equatable {
        /// The text taken: as read, or compacted and corrected (`alike`).
        var text: String
        /// Look-alike characters swapped.
        var swaps: Int
        /// What the expression matched, and its capture groups (`""` for one that took no part).
        var matched: String
        var groups: [String]
        /// The known list's verdict; nil for a rule without one.
        var known: KnownLookup?
    }

    let spec: RuleSpec
    /// The rule's expression, searched under ICU's step limit.
    private let expression: RuleExpression
    /// The first text whose search gave up at the step limit, until the rule book takes it.
    private var exceeded: String?
    /// Whether a search failed in ICU, until the rule book takes it.
    private var failed = false
    /// Lines are read alike frame after frame: what each text (with the recognizer's
    /// alternatives, their probabilities to a twentieth) gave, up to `cacheSize`.
    private var cache: [Key: Reading?] = [:]
    private struct Key: Hashable {
        var text: String
        var alternatives: [CharacterAlternative]
    }
    private static let cacheSize = 512
    /// Candidates tried for a part of a line (a whole line tries ``LookAlike/maximumCandidates``).
    private static let partCandidates = 64

    /// - Throws: when `spec.pattern` does not compile.
    init(spec: RuleSpec) throws {
        self.spec = spec
        expression = try RuleExpression(spec.pattern)
    }

    /// The first text whose search gave up at the step limit since the last call (the
    /// line is skipped for this rule), or nil.
    func takeExceeded() -> String? {
        defer { exceeded = nil }
        return exceeded
    }

    /// Whether a search failed in ICU since the last call.
    func takeFailed() -> Bool {
        defer { failed = false }
        return failed
    }

    /// What the rule takes of `text`, or nil when it does not match. With `alike` and a
    /// known list, a line that holds more than a known plate (`OSG=719 Heatlag`, a dealer's
    /// frame read on the plate's line) is taken as its words that are a known entry.
    /// - Parameter alternatives: what the recognizer ranked next at characters of `text`
    ///   (offsets in `text`): among corrections with as few swaps, those it ranked closer win.
    func reading(of text: String, alternatives: [CharacterAlternative] = []) -> Reading? {
        let plain = cached(Key(text: text, alternatives: []))
        // Only a correction can change, and only by the table's look-alikes of its characters
        // (to a twentieth: a line read again in the next frame is found in the cache).
        guard spec.alike, let plain, plain.swaps > 0 else { return plain }
        let characters = Array(text)
        let ranked = alternatives.compactMap { alternative -> CharacterAlternative? in
            guard alternative.offset < characters.count,
                  LookAlike.table[characters[alternative.offset]]?.contains(alternative.character) == true else { return nil }
            var rounded = alternative
            rounded.probability = (alternative.probability * 20).rounded() / 20
            return rounded.probability > 0 ? rounded : nil
        }
        return ranked.isEmpty ? plain : cached(Key(text: text, alternatives: ranked))
    }

    /// What `key` gave, worked out when not in the cache.
    private func cached(_ key: Key) -> Reading? {
        if let cached = cache[key] { return cached }
        var taken = reading(key.text, alternatives: key.alternatives, candidates: LookAlike.maximumCandidates)
        if spec.alike, spec.known != nil, taken?.known?.entry == nil {
            taken = knownPart(of: key.text) ?? taken
        }
        if cache.count >= Self.cacheSize { cache.removeAll(keepingCapacity: true) }
        cache[key] = taken
        return taken
    }

    /// `text` (or a part of it) as the rule takes it, trying at most `candidates` corrections.
    private func reading(_ text: String, alternatives: [CharacterAlternative] = [], candidates: Int) -> Reading? {
        var taken: Reading?
        if spec.alike {
            // The alternatives by position in the compacted text.
            var closeness: [Int: [Character: Double]] = [:]
            if !alternatives.isEmpty {
                var offsetOf: [Int: Int] = [:]
                for (offset, character) in text.enumerated() where character.isLetter || character.isNumber {
                    offsetOf[offset] = offsetOf.count
                }
                for alternative in alternatives {
                    if let position = offsetOf[alternative.offset] { closeness[position, default: [:]][alternative.character] = alternative.probability }
                }
            }
            var found: (matched: String, groups: [String])?
            let corrected = LookAlike.correct(LookAlike.compacted(text), maximumCandidates: candidates,
                                              closeness: { closeness[$0]?[$1] }) { candidate in
                found = firstMatch(in: spec.display.placed(candidate))
                return found != nil
            }
            if let corrected, let found {
                taken = Reading(text: spec.display.placed(corrected.text), swaps: corrected.swaps, matched: found.matched, groups: found.groups)
            }
        } else if case let shown = spec.display.placed(text), let found = firstMatch(in: shown) {
            taken = Reading(text: shown, swaps: 0, matched: found.matched, groups: found.groups)
        }
        if let known = spec.known, let text = taken?.text { taken?.known = known.lookup(text, maxDistance: spec.maximumDistance) }
        return taken
    }

    /// The run of `text`'s words that is the nearest known entry (fewest swaps among as
    /// near ones), or nil.
    private func knownPart(of text: String) -> Reading? {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count > 1 else { return nil }
        var best: Reading?
        for start in words.indices {
            for end in start..<words.count where end - start + 1 < words.count {
                let part = words[start...end].joined(separator: " ")
                guard let reading = reading(part, candidates: Self.partCandidates), let entry = reading.known?.entry else { continue }
                if let current = best?.known?.entry, (current.distance, best?.swaps ?? 0) <= (entry.distance, reading.swaps) { continue }
                best = reading
            }
        }
        return best
    }

    /// The one place the rule's expression runs (under ICU's step limit): the part of
    /// `text` it matched first and its capture groups (`""` for a group that took no
    /// part), or nil. A search that gives up at the limit is no match (and is noted).
    private func firstMatch(in text: String) -> (matched: String, groups: [String])? {
        switch expression.firstMatch(in: text) {
        case .noMatch:
            return nil
        case let .match(ranges):
            let units = Array(text.utf16)
            let substring = { (range: Range<Int>?) in range.map { String(decoding: units[$0], as: UTF16.self) } ?? "" }
            return (substring(ranges[0]), ranges.dropFirst().map(substring))
        case .limitExceeded:
            if exceeded == nil { exceeded = text }
            return nil
        case .failed:
            failed = true
            return nil
        }
    }
}
