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
        // The medoid: the reading with the least weighted distance to the others.
        var backboneIndex = 0, bestCost = Double.infinity
        for (index, text) in texts.enumerated() {
            var cost = 0.0
            for (other, otherText) in texts.enumerated() where other != index {
                cost += weights[other] * alignment(text, otherText).cost
            }
            if cost < bestCost { (backboneIndex, bestCost) = (index, cost) }
        }
        let backbone = texts[backboneIndex]
        // Slot 2i: the gap before backbone word i; slot 2i + 1: backbone word i.
        var votes = [[String: Double]](repeating: [:], count: 2 * backbone.count + 1)
        var winnerConfidence = [[String: Double]](repeating: [:], count: votes.count)
        var supporters = [[String: Int]](repeating: [:], count: votes.count)
        for (index, reading) in readings.enumerated() {
            let pairs = alignment(backbone, texts[index]).pairs
            var inserted = [[String]](repeating: [], count: backbone.count + 1)
            var insertedConfidence = [[Double]](repeating: [], count: backbone.count + 1)
            var matched = [Int?](repeating: nil, count: backbone.count)
            var gap = 0
            for pair in pairs {
                switch pair {
                case let (b?, r?): matched[b] = r; gap = b + 1
                case let (b?, nil): gap = b + 1
                case let (nil, r?): inserted[gap].append(texts[index][r]); insertedConfidence[gap].append(reading[r].confidence)
                case (nil, nil): break
                }
            }
            for slot in 0...backbone.count {
                let text = inserted[slot].joined(separator: " ")
                let confidence = insertedConfidence[slot].isEmpty ? weights[index]
                    : insertedConfidence[slot].reduce(0, +) / Double(insertedConfidence[slot].count)
                votes[2 * slot][text, default: 0] += max(0.05, confidence) * strengths[index]
                winnerConfidence[2 * slot][text, default: 0] += confidence
                supporters[2 * slot][text, default: 0] += 1
            }
            for word in 0..<backbone.count {
                let text = matched[word].map { texts[index][$0] } ?? ""
                let confidence = matched[word].map { reading[$0].confidence } ?? weights[index]
                votes[2 * word + 1][text, default: 0] += max(0.05, confidence) * strengths[index]
                winnerConfidence[2 * word + 1][text, default: 0] += confidence
                supporters[2 * word + 1][text, default: 0] += 1
            }
        }
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

    /// Readings that differ only in spaces ("500g" and "500 g") take the split with the
    /// most confidence behind it (ties: the first in text order), so that the vote weighs
    /// their letters together instead of splitting their weight between word slots.
    static func sharedTokenization(_ readings: [[VotedWord]], strengths: [Double]) -> [[VotedWord]] {
        var splits: [String: [[String]: Double]] = [:]
        for (reading, strength) in zip(readings, strengths) {
            let tokens = reading.map(\.text)
            splits[tokens.joined(), default: [:]][tokens, default: 0] += meanConfidence(reading) * strength
        }
        return readings.map { reading in
            let tokens = reading.map(\.text)
            guard let tally = splits[tokens.joined()], tally.count > 1,
                  let winner = tally.max(by: { a, b in
                      a.value != b.value ? a.value < b.value : a.key.joined(separator: " ") > b.key.joined(separator: " ")
                  })?.key, winner != tokens else { return reading }
            let confidence = meanConfidence(reading)
            return winner.map { VotedWord($0, confidence: confidence) }
        }
    }

    private static func meanConfidence(_ reading: [VotedWord]) -> Double {
        reading.map(\.confidence).reduce(0, +) / Double(max(1, reading.count))
    }

    /// Word-level alignment of `a` and `b`: pairs of indices (nil = gap) and the cost,
    /// normalised by the longer length (0: identical, 1: nothing in common).
    static func alignment(_ a: [String], _ b: [String]) -> (pairs: [(Int?, Int?)], cost: Double) {
        let n = a.count, m = b.count
        if n == 0 || m == 0 {
            return ((0..<n).map { ($0, nil) } + (0..<m).map { (nil, $0) }, n == m ? 0 : 1)
        }
        var cost = [[Double]](repeating: [Double](repeating: 0, count: m + 1), count: n + 1)
        for i in 0...n { cost[i][0] = Double(i) }
        for j in 0...m { cost[0][j] = Double(j) }
        for i in 1...n {
            for j in 1...m {
                let substitute = cost[i - 1][j - 1] + wordDistance(a[i - 1], b[j - 1])
                cost[i][j] = min(substitute, cost[i - 1][j] + 1, cost[i][j - 1] + 1)
            }
        }
        var pairs: [(Int?, Int?)] = []
        var i = n, j = m
        while i > 0 || j > 0 {
            if i > 0, j > 0, cost[i][j] == cost[i - 1][j - 1] + wordDistance(a[i - 1], b[j - 1]) {
                pairs.append((i - 1, j - 1)); i -= 1; j -= 1
            } else if i > 0, cost[i][j] == cost[i - 1][j] + 1 {
                pairs.append((i - 1, nil)); i -= 1
            } else {
                pairs.append((nil, j - 1)); j -= 1
            }
        }
        return (pairs.reversed(), cost[n][m] / Double(max(n, m)))
    }

    /// 0 for equal words, up to 1.5 for unrelated ones (so two unrelated words align as
    /// a deletion plus an insertion rather than a substitution).
    static func wordDistance(_ a: String, _ b: String) -> Double {
        if a == b { return 0 }
        return 1.5 * TextSimilarity.distance(a, b)
    }
}

/// Character-level similarity of short texts.
public enum TextSimilarity {
    /// Levenshtein distance over characters divided by the longer length (0…1).
    public static func distance(_ a: String, _ b: String) -> Double {
        let a = Array(a), b = Array(b)
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
