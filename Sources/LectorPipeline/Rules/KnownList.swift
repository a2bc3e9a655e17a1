import Foundation
import LectorProtocol

/// A rule's known list (`known = FILE`): lines of `TEXT` or `TEXT<TAB>NAME`; blank lines
/// and lines starting with `#` are left out. A reading within `max_distance` edits of an
/// entry, both folded by ``LookAlike/folded(_:)`` and without separators, is that entry.
public struct KnownList: Equatable, Sendable {
    /// One line of the file.
    public struct Entry: Equatable, Sendable {
        public var text: String
        public var name: String?
        /// `text` compacted and folded: what readings are compared with.
        var folded: String
    }

    /// Where the list was read from.
    public let path: String
    public let entries: [Entry]
    /// The entries' folded texts, searched within an edit distance.
    private let index: KnownIndex

    public static func == (a: KnownList, b: KnownList) -> Bool { a.path == b.path && a.entries == b.entries }

    /// A line of the file that is not an entry.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let line: Int
        public let message: String
        public var description: String { line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)" }
    }

    /// The list in `contents`, read from `path`.
    /// - Throws: ``Problem`` at the first line that is not an entry (a text with no letter
    ///   or digit, a tab and no name, a text given twice).
    public init(path: String, contents: String) throws(Problem) {
        var entries: [Entry] = []
        var lineOf: [String: Int] = [:]
        for (index, raw) in contents.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let number = index + 1
            if line.allSatisfy(\.isWhitespace) || line.first == "#" { continue }
            let fields = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            let text = fields[0].trimmingCharacters(in: .whitespaces)
            let folded = LookAlike.folded(LookAlike.compacted(text))
            guard !folded.isEmpty, folded.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw Problem(path: path, line: number, message: "an entry is TEXT or TEXT<TAB>NAME, letters and digits (spaces, '-' and '.' left out), not '\(line)'")
            }
            var name: String?
            if fields.count == 2 {
                let given = fields[1].trimmingCharacters(in: .whitespaces)
                guard !given.isEmpty else { throw Problem(path: path, line: number, message: "a tab and no name after '\(text)'") }
                name = given
            }
            if let earlier = lineOf[folded] {
                throw Problem(path: path, line: number, message: "'\(text)' is the same plate as line \(earlier) (after look-alike folding)")
            }
            lineOf[folded] = number
            entries.append(Entry(text: text, name: name, folded: folded))
        }
        self.path = path
        self.entries = entries
        index = KnownIndex(entries.map(\.folded))
    }

    /// The entry `reading` is, within `maxDistance` edits after folding: the nearest; of
    /// as near entries, the one nearer before folding, then the first in the file. The
    /// nearest are found in the list's index (``KnownIndex``), in time that does not
    /// grow with the list.
    public func lookup(_ reading: String, maxDistance: Int) -> KnownLookup {
        let compact = LookAlike.compacted(reading)
        guard let nearest = index.nearest(to: LookAlike.folded(compact), within: maxDistance) else { return .unknown }
        var best: (entry: Entry, raw: Int)?
        for position in nearest.entries {  // in file order: the first of as near ones stays
            let entry = entries[position]
            let raw = Self.editDistance(compact.uppercased(), LookAlike.compacted(entry.text).uppercased(), atMost: .max) ?? .max
            if let current = best, current.raw <= raw { continue }
            best = (entry, raw)
        }
        guard let best else { return .unknown }
        return .entry(KnownEntry(text: best.entry.text, name: best.entry.name, distance: nearest.distance))
    }

    /// The same by comparing the reading with every entry in turn: the reference the
    /// index is checked against (tests, lector-bench).
    public func lookupByScan(_ reading: String, maxDistance: Int) -> KnownLookup {
        let compact = LookAlike.compacted(reading)
        let folded = LookAlike.folded(compact)
        var best: (entry: Entry, distance: Int, raw: Int)?
        for entry in entries {
            guard let distance = Self.editDistance(folded, entry.folded, atMost: maxDistance) else { continue }
            if let current = best, current.distance < distance { continue }
            let raw = Self.editDistance(compact.uppercased(), LookAlike.compacted(entry.text).uppercased(), atMost: .max) ?? .max
            if let current = best, current.distance == distance, current.raw <= raw { continue }
            best = (entry, distance, raw)
        }
        guard let best else { return .unknown }
        return .entry(KnownEntry(text: best.entry.text, name: best.entry.name, distance: best.distance))
    }

    /// Levenshtein distance between `a` and `b` (insertions, deletions, substitutions),
    /// or nil when it is more than `limit`.
    static func editDistance(_ a: String, _ b: String, atMost limit: Int) -> Int? {
        let a = Array(a), b = Array(b)
        guard abs(a.count - b.count) <= limit else { return nil }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...max(1, a.count) where i <= a.count {
            current[0] = i
            var rowMinimum = i
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return nil }
            swap(&previous, &current)
        }
        let distance = previous[b.count]
        return distance <= limit ? distance : nil
    }
}
