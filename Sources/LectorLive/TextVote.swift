import LectorProtocol
import LectorSystem

/// One word as observed in one frame: its text and Tesseract's confidence (0–1).
public struct VotedWord: Sendable, Equatable {
    public var text: String
    public var confidence: Double

    public init(_ text: String, confidence: Double) {
        self.text = text
        self.confidence = confidence
    }
}

/// ROVER-style consensus over several readings of one line of text.
///
/// The reading most similar to all others (the medoid, confidence-weighted) is the
/// backbone; every reading is aligned to it word by word (edit distance where two
/// similar words cost less than a deletion plus an insertion), and each slot — a
/// backbone word, or the gap before it — takes the candidate with the most confidence
/// behind it, an absent word voting with its reading's mean confidence. The text's
/// confidence is the mean agreement (winning weight / all weight) over the slots that
/// produced a word, times the winners' mean confidence.
public enum TextVote {
    /// The consensus of `readings` (each a line's words in order).
    /// - Parameter strengths: how much each reading counts besides its confidence (a
    ///   reading of a stack of 16 frames is worth more than one of a single frame);
    ///   nil: all alike.
    public static func consensus(_ readings: [[VotedWord]], strengths: [Double]? = nil) -> (text: String, confidence: Double) {
        let kept = readings.indices.filter { !readings[$0].isEmpty }
        let strengths = kept.map { strengths?[$0] ?? 1 }
        let readings = sharedTokenization(kept.map { readings[$0] }, strengths: strengths)
        guard !readings.isEmpty else { return ("", 0) }
        if readings.count == 1 {
            let words = readings[0]
            return (words.map(\.text).joined(separator: " "), Self.meanConfidence(words))
        }
        let texts = readings.map { $0.map(\.text) }
        let weights = readings.map { max(0.05, Self.meanConfidence($0)) }
        // Each distinct word once: its scalars, and its distance to another word computed
        // at most once per vote. Readings that agree (most of a still scene's) are not
        // aligned at all: equal readings align word for word at no cost.
        var table = WordTable()
        let ids = texts.map { table.ids(of: $0) }
        let backboneIndex = medoid(ids, weights: weights, &table)
        let backbone = texts[backboneIndex]
        var ballot = SlotBallot(backbone: backbone)
        for (index, reading) in readings.enumerated() {
            let pairs: [(Int?, Int?)] = ids[index] == ids[backboneIndex] ? backbone.indices.map { ($0, $0) }
                : alignment(ids[backboneIndex], ids[index], &table).pairs
            ballot.add(reading, aligned: pairs, weight: weights[index], strength: strengths[index])
        }
        return ballot.result()
    }

    /// The medoid: the index of the reading (by its word numbers in `table`) with the least
    /// distance to the others, each weighted by `weights`. (The alignment cost is
    /// symmetric: each pair is aligned once.)
    static func medoid(_ ids: [[Int]], weights: [Double], _ table: inout WordTable) -> Int {
        let count = ids.count
        var pairCost = [Double](repeating: 0, count: count * count)
        for first in ids.indices {
            for second in ids.indices where second > first && ids[second] != ids[first] {
                let cost = alignment(ids[first], ids[second], &table).cost
                pairCost[first * count + second] = cost
                pairCost[second * count + first] = cost
            }
        }
        var backboneIndex = 0, bestCost = Double.infinity
        for index in ids.indices {
            var cost = 0.0
            for other in ids.indices where other != index { cost += weights[other] * pairCost[index * count + other] }
            if cost < bestCost { (backboneIndex, bestCost) = (index, cost) }
        }
        return backboneIndex
    }

    /// The votes of one consensus, per slot of the backbone (slot 2i: the gap before
    /// backbone word i; slot 2i + 1: backbone word i): each candidate text's weight, the
    /// confidence of the readings behind it, and how many readings those are.
    struct SlotBallot {
        let backbone: [String]
        private var votes: [[String: Double]]
        private var winnerConfidence: [[String: Double]]
        private var supporters: [[String: Int]]

        init(backbone: [String]) {
            self.backbone = backbone
            votes = [[String: Double]](repeating: [:], count: 2 * backbone.count + 1)
            winnerConfidence = [[String: Double]](repeating: [:], count: votes.count)
            supporters = [[String: Int]](repeating: [:], count: votes.count)
        }

        /// Casts `reading`'s votes: in each gap the words it inserts there (or nothing), on
        /// each backbone word the word aligned to it (or nothing); an absent word votes
        /// with `weight`, the reading's mean confidence.
        /// - Parameter aligned: pairs of (backbone index, reading index), nil for a gap.
        mutating func add(_ reading: [VotedWord], aligned pairs: [(Int?, Int?)], weight: Double, strength: Double) {
            var inserted = [[String]](repeating: [], count: backbone.count + 1)
            var insertedConfidence = [[Double]](repeating: [], count: backbone.count + 1)
            var matched = [Int?](repeating: nil, count: backbone.count)
            var gap = 0
            for pair in pairs {
                switch pair {
                case let (b?, r?): matched[b] = r; gap = b + 1
                case let (b?, nil): gap = b + 1
                case let (nil, r?): inserted[gap].append(reading[r].text); insertedConfidence[gap].append(reading[r].confidence)
                case (nil, nil): break
                }
            }
            for slot in 0...backbone.count {
                let text = inserted[slot].joined(separator: " ")
                let confidence = insertedConfidence[slot].isEmpty ? weight
                    : insertedConfidence[slot].reduce(0, +) / Double(insertedConfidence[slot].count)
                vote(text, confidence: confidence, strength: strength, slot: 2 * slot)
            }
            for word in 0..<backbone.count {
                let text = matched[word].map { reading[$0].text } ?? ""
                let confidence = matched[word].map { reading[$0].confidence } ?? weight
                vote(text, confidence: confidence, strength: strength, slot: 2 * word + 1)
            }
        }

        private mutating func vote(_ text: String, confidence: Double, strength: Double, slot: Int) {
            votes[slot][text, default: 0] += max(0.05, confidence) * strength
            winnerConfidence[slot][text, default: 0] += confidence
            supporters[slot][text, default: 0] += 1
        }

        /// The winners' words in order, and the mean agreement (winning weight / all
        /// weight) over the slots that produced a word times the winners' mean confidence.
        func result() -> (text: String, confidence: Double) {
            var words: [String] = []
            var agreement = 0.0, confidence = 0.0, slots = 0
            for (slot, tally) in votes.enumerated() {
                // Ties go to the backbone's own reading of the slot (a word the medoid has, no
                // insertion in a gap), then to the alphabetically first text, so the result
                // never depends on order and a tie between "500g" and "500 g" keeps a whole
                // reading instead of "500".
                let preferred = slot % 2 == 1 ? backbone[slot / 2] : ""
                guard let winner = tally.max(by: { a, b in
                    if a.value != b.value { return a.value < b.value }
                    if (a.key == preferred) != (b.key == preferred) { return b.key == preferred }
                    return a.key > b.key
                }), !winner.key.isEmpty else { continue }
                words.append(winner.key)
                let total = tally.values.reduce(0, +)
                agreement += winner.value / total
                confidence += (winnerConfidence[slot][winner.key] ?? 0) / Double(max(1, supporters[slot][winner.key] ?? 0))
                slots += 1
            }
            guard slots > 0 else { return ("", 0) }
            let meanAgreement = agreement / Double(slots)
            let meanConfidence = min(1, confidence / Double(slots))
            return (words.joined(separator: " "), meanAgreement * meanConfidence)
        }
    }

    /// Readings that differ only in spaces ("500g" and "500 g") take the split with the
    /// most confidence behind it (ties: the first in text order), so that the vote weighs
    /// their letters together instead of splitting their weight between word slots. A
    /// split's confidence is that of the words it splits its own way ("500g" against
    /// "500" and "g"), not of the whole line: the words every split shares say nothing
    /// about where the space goes. (Measured in tests/live: "Net weight 500g" read at
    /// 0.92 against "Net weight 500 g" at 0.912 by their lines, but "500g" at 0.855
    /// against "500 g" at 0.862; the line's mean chose "500g" and the track kept it.)
    static func sharedTokenization(_ readings: [[VotedWord]], strengths: [Double]) -> [[VotedWord]] {
        let tokens = readings.map { $0.map(\.text) }
        let letters = tokens.map { $0.joined() }
        var splitsOfLetters: [String: Set<[String]>] = [:]
        for (split, joined) in zip(tokens, letters) { splitsOfLetters[joined, default: []].insert(split) }
        guard splitsOfLetters.values.contains(where: { $0.count > 1 }) else { return readings }
        // The words every split of the same letters has (as often), once per letters.
        let shared = splitsOfLetters.filter { $0.value.count > 1 }.mapValues(sharedWords)
        var tally: [[String]: Double] = [:]
        for index in readings.indices {
            guard let common = shared[letters[index]] else { continue }
            tally[tokens[index], default: 0] += meanConfidence(wordsSplitOwnWay(readings[index], sharing: common)) * strengths[index]
        }
        return readings.indices.map { index in
            guard let splits = splitsOfLetters[letters[index]], splits.count > 1,
                  let winner = splits.max(by: { a, b in
                      let (first, second) = (tally[a] ?? 0, tally[b] ?? 0)
                      return first != second ? first < second : a.joined(separator: " ") > b.joined(separator: " ")
                  }), winner != tokens[index] else { return readings[index] }
            let confidence = meanConfidence(readings[index])
            return winner.map { VotedWord($0, confidence: confidence) }
        }
    }

    /// The words every split in `splits` has, and how often each has it.
    private static func sharedWords(_ splits: Set<[String]>) -> [String: Int] {
        func counts(_ words: [String]) -> [String: Int] { Dictionary(words.map { ($0, 1) }, uniquingKeysWith: +) }
        return splits.dropFirst().reduce(counts(splits.first ?? [])) { common, split in
            let these = counts(split)
            return common.reduce(into: [:]) { result, entry in
                if let count = these[entry.key] { result[entry.key] = min(entry.value, count) }
            }
        }
    }

    /// The words of `reading` beyond those every split shares (`common`, from
    /// ``sharedWords(_:)``): those where its spaces differ. All of them when it has no such word.
    private static func wordsSplitOwnWay(_ reading: [VotedWord], sharing common: [String: Int]) -> [VotedWord] {
        var common = common
        let own = reading.filter { word in
            guard let left = common[word.text], left > 0 else { return true }
            common[word.text] = left - 1
            return false
        }
        return own.isEmpty ? reading : own
    }

    private static func meanConfidence(_ reading: [VotedWord]) -> Double {
        reading.map(\.confidence).reduce(0, +) / Double(max(1, reading.count))
    }

    /// The distinct words of one vote, numbered: their scalars, and the distances
    /// between them, each computed once.
    struct WordTable {
        private var numbers: [String: Int] = [:]
        private var scalars: [[Unicode.Scalar]] = []
        /// distances[i][j]: the distance of words i and j, or -1 while not computed.
        private var distances: [[Double]] = []

        /// The numbers of `words`, new words numbered as they come.
        mutating func ids(of words: [String]) -> [Int] {
            words.map { word in
                if let number = numbers[word] { return number }
                let number = scalars.count
                numbers[word] = number
                scalars.append(Array(word.unicodeScalars))
                for index in distances.indices { distances[index].append(-1) }
                distances.append([Double](repeating: -1, count: number + 1))
                distances[number][number] = 0
                return number
            }
        }

        /// 0 for equal words (equal numbers), up to 1.5 for unrelated ones (so two
        /// unrelated words align as a deletion plus an insertion rather than a substitution).
        mutating func distance(_ a: Int, _ b: Int) -> Double {
            let known = distances[a][b]
            if known >= 0 { return known }
            let distance = 1.5 * TextSimilarity.distance(scalars[a], scalars[b])
            distances[a][b] = distance
            distances[b][a] = distance
            return distance
        }
    }

    /// Word-level alignment of the words numbered `a` and `b` in `table`: pairs of
    /// indices (nil = gap) and the cost, normalised by the longer length (0: identical,
    /// 1: nothing in common).
    static func alignment(_ a: [Int], _ b: [Int], _ table: inout WordTable) -> (pairs: [(Int?, Int?)], cost: Double) {
        let n = a.count, m = b.count
        if n == 0 || m == 0 {
            return ((0..<n).map { ($0, nil) } + (0..<m).map { (nil, $0) }, n == m ? 0 : 1)
        }
        // One flat (n+1)×(m+1) table, and each pair of words compared once.
        let width = m + 1
        var distance = [Double](repeating: 0, count: n * m)
        for i in 0..<n { for j in 0..<m { distance[i * m + j] = table.distance(a[i], b[j]) } }
        var cost = [Double](repeating: 0, count: (n + 1) * width)
        for i in 0...n { cost[i * width] = Double(i) }
        for j in 0...m { cost[j] = Double(j) }
        for i in 1...n {
            for j in 1...m {
                let substitute = cost[(i - 1) * width + j - 1] + distance[(i - 1) * m + j - 1]
                cost[i * width + j] = min(substitute, cost[(i - 1) * width + j] + 1, cost[i * width + j - 1] + 1)
            }
        }
        var pairs: [(Int?, Int?)] = []
        var i = n, j = m
        while i > 0 || j > 0 {
            if i > 0, j > 0, cost[i * width + j] == cost[(i - 1) * width + j - 1] + distance[(i - 1) * m + j - 1] {
                pairs.append((i - 1, j - 1)); i -= 1; j -= 1
            } else if i > 0, cost[i * width + j] == cost[(i - 1) * width + j] + 1 {
                pairs.append((i - 1, nil)); i -= 1
            } else {
                pairs.append((nil, j - 1)); j -= 1
            }
        }
        return (pairs.reversed(), cost[n * width + m] / Double(max(n, m)))
    }
}

/// Character-level similarity of short texts.
public enum TextSimilarity {
    /// Levenshtein distance over Unicode scalars divided by the longer length (0…1).
    public static func distance(_ a: String, _ b: String) -> Double {
        // Unicode scalars, not grapheme clusters: the same for OCR text, and several
        // times cheaper (the tracker compares every pair of its readings' words).
        distance(Array(a.unicodeScalars), Array(b.unicodeScalars))
    }

    /// The same over scalars already split out.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Double {
        if a.isEmpty && b.isEmpty { return 0 }
        if a.isEmpty || b.isEmpty { return 1 }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1), previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return Double(previous[b.count]) / Double(max(a.count, b.count))
    }

    /// 1 − ``distance(_:_:)``, ignoring case.
    public static func similarity(_ a: String, _ b: String) -> Double {
        1 - distance(a.lowercased(), b.lowercased())
    }
}
