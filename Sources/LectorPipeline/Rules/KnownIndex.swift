/// The folded texts of a known list as a trie, searched within an edit distance: a
/// lookup walks the trie keeping one row of the Levenshtein table per prefix, and leaves
/// a branch once every cell of its row is past the distance. It visits the prefixes near
/// the reading, not the whole list, so its time does not grow with the list (issue 45:
/// a linear search over 100,000 plates cost about 0.5 s per frame). Exact texts are
/// found by a table first.
///
/// Nodes live in flat arrays (first child, next sibling), a few bytes per character of
/// the list; characters are numbered (compared as integers), and a reading whose length
/// no entry comes within the distance of is no entry at once.
struct KnownIndex: Sendable {
    /// Each node's character's number (the root's is unused).
    private var labels: [Int32] = [-1]
    /// The numbers of the list's characters; a reading's other characters match none.
    private var numbers: [Character: Int32] = [:]
    /// The shortest and longest texts' lengths.
    private var lengths = (shortest: Int.max, longest: 0)
    private var firstChild: [Int32] = [-1]
    private var nextSibling: [Int32] = [-1]
    /// The entry whose folded text ends at each node, or -1.
    private var entryAt: [Int32] = [-1]
    /// Each folded text's entry.
    private var exact: [String: Int] = [:]
    /// The longest text's length in characters: the deepest row of a search.
    private var depth = 0

    /// - Parameter texts: folded texts, distinct; entry i is `texts[i]`.
    init(_ texts: [String]) {
        exact.reserveCapacity(texts.count)
        for (index, text) in texts.enumerated() {
            exact[text] = index
            var node = 0
            var length = 0
            for character in text {
                let number = numbers[character] ?? Int32(numbers.count)
                numbers[character] = number
                node = child(of: node, labelled: number) ?? appendChild(of: node, labelled: number)
                length += 1
            }
            entryAt[node] = Int32(index)
            depth = max(depth, length)
            lengths = (min(lengths.shortest, length), max(lengths.longest, length))
        }
    }

    private func child(of node: Int, labelled character: Int32) -> Int? {
        var child = Int(firstChild[node])
        while child >= 0 {
            if labels[child] == character { return child }
            child = Int(nextSibling[child])
        }
        return nil
    }

    private mutating func appendChild(of node: Int, labelled character: Int32) -> Int {
        let new = labels.count
        labels.append(character)
        firstChild.append(-1)
        nextSibling.append(firstChild[node])
        entryAt.append(-1)
        firstChild[node] = Int32(new)
        return new
    }

    /// The entries within `limit` edits of `query` (insertions, deletions, substitutions)
    /// and their distances, all of those nearest to it; empty when none is that near.
    func nearest(to query: String, within limit: Int) -> (entries: [Int], distance: Int)? {
        if let index = exact[query] { return ([index], 0) }  // texts are distinct: the only one at 0
        let characters = query.map { numbers[$0] ?? -2 }
        guard limit > 0, characters.count + limit >= lengths.shortest, characters.count <= lengths.longest + limit else { return nil }
        let search = Search(query: characters, limit: limit, depth: depth)
        visitChildren(of: 0, level: 0, search: search)
        return search.found.isEmpty ? nil : (search.found.sorted(), search.best)
    }

    /// One search's state: the query, a row of the table per level, what was found.
    /// Its rows and query live in memory of its own (no checks in the inner loop).
    private final class Search {
        let query: UnsafeMutableBufferPointer<Int32>
        var limit: Int
        /// Row `level` of the table at `rows[level * width ..< (level + 1) * width]`.
        let rows: UnsafeMutableBufferPointer<Int>
        let width: Int
        var found: [Int] = []
        var best = Int.max

        init(query characters: [Int32], limit: Int, depth: Int) {
            query = .allocate(capacity: max(1, characters.count))
            _ = query.initialize(from: characters)
            self.limit = limit
            width = characters.count + 1
            rows = .allocate(capacity: (depth + 1) * width)
            rows.initialize(repeating: 0)
            for column in 0..<width { rows[column] = column }
        }

        deinit {
            query.deallocate()
            rows.deallocate()
        }

        /// Fills row `level + 1` for the character `label` after row `level`; returns its
        /// last cell (the distance of the prefix to the query) and its smallest.
        func extend(level: Int, label: Int32) -> (last: Int, smallest: Int) {
            let above = rows.baseAddress! + level * width, here = above + width
            here[0] = above[0] + 1
            var smallest = here[0]
            for column in 1..<width {
                let substitution = above[column - 1] + (query[column - 1] == label ? 0 : 1)
                let cell = min(above[column] + 1, here[column - 1] + 1, substitution)
                here[column] = cell
                smallest = min(smallest, cell)
            }
            return (here[width - 1], smallest)
        }

        /// An entry at `distance`: kept if nearest so far; the search then looks no farther.
        func offer(_ entry: Int, distance: Int) {
            if distance < best {
                best = distance
                found = [entry]
                limit = distance
            } else if distance == best {
                found.append(entry)
            }
        }
    }

    private func visitChildren(of node: Int, level: Int, search: Search) {
        var child = Int(firstChild[node])
        while child >= 0 {
            let (last, smallest) = search.extend(level: level, label: labels[child])
            if entryAt[child] >= 0, last <= search.limit { search.offer(Int(entryAt[child]), distance: last) }
            if smallest <= search.limit, firstChild[child] >= 0 { visitChildren(of: child, level: level + 1, search: search) }
            child = Int(nextSibling[child])
        }
    }
}
