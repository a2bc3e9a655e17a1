import CICURegex

/// A rule's ICU regular expression, matched under a step limit: a pattern that
/// backtracks without end (`^(a|aa)+$` on a line of `a`s and a `!`) gives up after
/// ``stepLimit`` instead of holding the camera's publishing step. The same syntax as
/// Foundation's `NSRegularExpression`, through ICU's C API (`uregex`), which can bound
/// a match. Owns its ICU handle; one thread at a time (a camera's ordered publish step).
final class RuleExpression {
    /// What a search found.
    enum Outcome: Equatable {
        case noMatch
        /// The whole match, then each group (nil: the group took no part), in UTF-16 units.
        case match([Range<Int>?])
        /// The search gave up at the step or memory limit.
        case limitExceeded
        /// ICU failed otherwise.
        case failed
    }

    /// Why a pattern does not compile.
    struct CompileError: Error, CustomStringConvertible {
        let description: String
    }

    /// ICU's time-limit units a search may take: each about ten thousand steps of its
    /// backtracking engine (20 units took 1.8-2.3 ms of CPU here, docs/PERFORMANCE.md);
    /// a rule on a line of text needs a few hundred steps (5-7 µs).
    static let stepLimit: Int32 = 20
    /// Bytes of backtracking memory a search may use (ICU's default is 8 MB).
    static let stackLimit: Int32 = 1 << 20

    private let handle: OpaquePointer
    /// The pattern's capture groups.
    let groups: Int

    /// Compiles `pattern`.
    /// - Throws: ``CompileError`` with ICU's reason when it is not a regular expression.
    init(_ pattern: String, stepLimit: Int32 = RuleExpression.stepLimit) throws(CompileError) {
        let units = Array(pattern.utf16)
        var reason = [CChar](repeating: 0, count: 128)
        let made = units.withUnsafeBufferPointer { buffer in
            lector_regex_open(buffer.baseAddress, Int32(buffer.count), stepLimit, Self.stackLimit, &reason, reason.count)
        }
        guard let made else {
            throw CompileError(description: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        handle = made
        groups = Int(lector_regex_groups(made))
    }

    deinit { lector_regex_close(handle) }

    /// The first match in `text`.
    func firstMatch(in text: String) -> Outcome {
        let units = Array(text.utf16)
        var ranges = [Int32](repeating: -1, count: 2 * (groups + 1))
        let result = units.withUnsafeBufferPointer { buffer in
            lector_regex_find(handle, buffer.baseAddress, Int32(buffer.count), &ranges, Int32(groups + 1))
        }
        switch result {
        case LECTOR_REGEX_NO_MATCH: return .noMatch
        case LECTOR_REGEX_MATCH:
            return .match((0...groups).map { group in
                let start = Int(ranges[2 * group]), end = Int(ranges[2 * group + 1])
                return start < 0 || end < start ? nil : start..<end
            })
        case LECTOR_REGEX_LIMIT: return .limitExceeded
        default: return .failed
        }
    }

    /// Whether `pattern` repeats a group that itself holds a repetition (`([0-9]+ ?)+`,
    /// `(a*)*`): the shape whose failing matches can backtrack exponentially.
    /// `--check-config` warns about it. A possessive inner repetition (`[0-9]++`) or an
    /// atomic group (`(?>…)`) cannot backtrack into itself and is not counted.
    static func hasNestedQuantifier(_ pattern: String) -> Bool {
        // One entry per open group: whether something inside it repeats, and whether the
        // group is atomic.
        var open: [(repeats: Bool, atomic: Bool)] = []
        var characters = Array(pattern.unicodeScalars)[...]
        var inClass = false
        while let character = characters.popFirst() {
            switch character {
            case "\\": _ = characters.popFirst()
            case "[" where !inClass: inClass = true
            case "]" where inClass: inClass = false
            case _ where inClass: break
            case "(": open.append((false, characters.starts(with: ["?", ">"])))
            case ")":
                guard let inner = open.popLast() else { break }
                let repeats = inner.repeats && !inner.atomic
                if repeats, let next = characters.first, isRepeat(next, before: characters.dropFirst()) { return true }
                if repeats, !open.isEmpty { open[open.count - 1].repeats = true }
            default:
                guard isRepeat(character, before: characters) else { break }
                // A possessive quantifier (`*+`, `++`, `{2,}+`) gives nothing back.
                if character == "{", let close = characters.firstIndex(of: "}") { characters = characters[(close + 1)...] }
                if characters.first == "+" {
                    characters = characters.dropFirst()
                } else if !open.isEmpty {
                    open[open.count - 1].repeats = true
                }
            }
        }
        return false
    }

    /// Whether `character` (followed by `rest`) repeats what precedes it more than once:
    /// `*`, `+`, or `{n}`, `{n,}`, `{n,m}` with n or m above 1.
    private static func isRepeat(_ character: Unicode.Scalar, before rest: ArraySlice<Unicode.Scalar>) -> Bool {
        if character == "*" || character == "+" { return true }
        guard character == "{", let close = rest.firstIndex(of: "}") else { return false }
        let parts = String(String.UnicodeScalarView(rest[rest.startIndex..<close])).split(separator: ",", omittingEmptySubsequences: false)
        guard let low = Int(parts.first ?? "") else { return false }
        if parts.count == 1 { return low > 1 }
        return parts[1].isEmpty || (Int(parts[1]) ?? 0) > 1
    }
}
