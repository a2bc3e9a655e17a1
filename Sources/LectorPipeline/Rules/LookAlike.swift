/// The characters a recognizer mistakes for each other on plates and meters, and the
/// format-aware correction a rule with `alike = true` makes with them: when the text as
/// read does not match the rule's expression, the readings that swapping look-alike
/// characters gives are tried, fewest swaps first, and the first that matches is taken.
///
/// The table (docs/plates-and-meters.md): letters for digits and back,
/// `O D Q ↔ 0`, `I ↔ 1`, `Z ↔ 2`, `S ↔ 5`, `G ↔ 6`, `B ↔ 8`, and a lower-case letter for
/// its capital (and its digit; `l` for `1` and `I`).
public enum LookAlike {
    /// Each character's look-alikes, the likeliest first.
    public static let table: [Character: [Character]] = {
        let pairs: [(Character, [Character])] = [
            ("0", ["O", "D", "Q"]), ("1", ["I"]), ("2", ["Z"]), ("5", ["S"]), ("6", ["G"]), ("8", ["B"]),
            ("O", ["0"]), ("D", ["0"]), ("Q", ["0"]), ("I", ["1"]), ("Z", ["2"]), ("S", ["5"]), ("G", ["6"]), ("B", ["8"]),
        ]
        var table = Dictionary(uniqueKeysWithValues: pairs)
        for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" {
            let lower = Character(letter.lowercased())
            table[lower] = [letter] + (table[letter] ?? [])
        }
        table["l"] = ["1", "I", "L"]
        return table
    }()

    /// What one class of look-alikes folds to (known lists compare folded texts): the digit
    /// of each pair, and capitals for other letters.
    public static func folded(_ text: String) -> String {
        String(text.map { character in
            let upper = Character(character.uppercased())
            if upper.isNumber { return upper }
            return table[upper]?.first(where: \.isNumber) ?? upper
        })
    }

    /// `text`'s letters and digits only: plates are printed with spaces, hyphens, dots and
    /// emblems (read as `=`, `*`, `·`) and registered without; what a rule with `alike` tests.
    public static func compacted(_ text: String) -> String {
        String(text.filter { $0.isLetter || $0.isNumber })
    }

    /// The most candidate readings one correction tries by default (an expression is
    /// tested on each).
    public static let maximumCandidates = 1024

    /// The reading of `text` that `accepts` takes with the fewest swaps, and how many;
    /// nil when none of the first `maximumCandidates` does. `text` itself (0 swaps) is tried
    /// first. Among readings with as many swaps, those whose swapped characters the
    /// recognizer ranked closer (`closeness(position, character)`, 0…1, the probability it
    /// gave that character there; nil: it gave none) come first, then the table's order.
    public static func correct(_ text: String, maximumCandidates: Int = maximumCandidates,
                               closeness: (Int, Character) -> Double? = { _, _ in nil },
                               accepts: (String) -> Bool) -> (text: String, swaps: Int)? {
        let characters = Array(text)
        if accepts(text) { return (text, 0) }
        // Per position: its alternatives with their cost (lower first).
        let options: [[(character: Character, cost: Double)]] = characters.enumerated().map { position, character in
            (table[character] ?? []).enumerated().map { order, alternative in
                let rank = closeness(position, alternative).map { 1 - min(1, max(0, $0)) } ?? 1
                return (alternative, rank + Double(order) * 1e-3)
            }
        }
        let swappable = options.indices.filter { !options[$0].isEmpty }
        var tried = 1
        for swaps in 1...max(1, swappable.count) where swaps <= swappable.count {
            var candidates: [(text: [Character], cost: Double)] = []
            var exhausted = false
            forEachSubset(of: swappable, size: swaps) { positions in
                var partial: [([Character], Double)] = [(characters, 0)]
                for position in positions {
                    partial = partial.flatMap { reading, cost in
                        options[position].map { option -> ([Character], Double) in
                            var next = reading
                            next[position] = option.character
                            return (next, cost + option.cost)
                        }
                    }
                }
                candidates += partial
                if tried + candidates.count > maximumCandidates { exhausted = true }
                return !exhausted
            }
            candidates.sort { $0.cost < $1.cost }
            for candidate in candidates.prefix(maximumCandidates - tried) {
                let reading = String(candidate.text)
                if accepts(reading) { return (reading, swaps) }
            }
            tried += candidates.count
            if exhausted { return nil }
        }
        return nil
    }

    /// Calls `body` with each `size`-element subset of `items` (in order) until it returns false.
    private static func forEachSubset(of items: [Int], size: Int, _ body: ([Int]) -> Bool) {
        var chosen: [Int] = []
        func visit(_ start: Int) -> Bool {
            if chosen.count == size { return body(chosen) }
            guard start < items.count, items.count - start >= size - chosen.count else { return true }
            for index in start..<items.count {
                chosen.append(items[index])
                let goOn = visit(index + 1)
                chosen.removeLast()
                if !goOn { return false }
            }
            return true
        }
        _ = visit(0)
    }
}
