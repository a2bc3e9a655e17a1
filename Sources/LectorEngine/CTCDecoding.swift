import LectorProtocol

/// Greedy CTC decoding of a line recognizer's output: per time step the most probable
/// class; runs of the same class collapse to one symbol, the blank class (0) separates
/// symbols and is dropped; class i is character i − 1 of the model's list, the last class
/// a space. Words are split at decoded whitespace, and each symbol gets the span of time
/// steps it stands for, so that boxes can be measured along the line. Each symbol keeps
/// the class the network ranked next at its steps (its runner-up: `0` where `O` came
/// second), which a rule's look-alike correction prefers.
///
/// Pure: no model, no C. ``NeuralLineEngine`` runs the network and maps the spans to
/// image pixels.
public enum CTCDecoding {
    /// A symbol's span when the line has no other symbol to measure the pitch from, in
    /// time steps (a step is 8 network pixels, a character at the network's 48 px height
    /// about 25-40 px).
    public static let defaultPitch = 4.0

    /// A runner-up's probability below this is not kept (it ranks nothing).
    public static let minimumRunnerUp = 0.01

    /// One time step: the class taken (the most probable, of the allowed ones) and its
    /// probability, and the most probable other class that is not blank (its runner-up).
    public struct Step: Equatable, Sendable {
        public var classIndex: Int
        public var probability: Double
        /// The runner-up: its class and probability; nil when below ``minimumRunnerUp``.
        public var runnerUp: (classIndex: Int, probability: Double)? {
            runnerUpClass < 0 ? nil : (runnerUpClass, runnerUpProbability)
        }
        private var runnerUpClass = -1
        private var runnerUpProbability = 0.0

        public init(_ classIndex: Int, _ probability: Double, runnerUp: (classIndex: Int, probability: Double)? = nil) {
            self.classIndex = classIndex
            self.probability = probability
            if let runnerUp, runnerUp.probability >= CTCDecoding.minimumRunnerUp {
                runnerUpClass = runnerUp.classIndex
                runnerUpProbability = runnerUp.probability
            }
        }
    }

    /// The steps of a network's output: per time step (a row of `classes` probabilities),
    /// the most probable class of the allowed ones (blank when none is) and the most
    /// probable other allowed class that is not blank. The probabilities are each class's
    /// share of all classes.
    /// - Parameter allowed: one flag per class (nonzero: allowed); nil: all.
    ///
    /// Both of the neural engine's backends hand their output here.
    public static func steps(output: UnsafeBufferPointer<Float>, classes: Int, allowed: [UInt8]? = nil) -> [Step] {
        precondition(classes > 0 && output.count % classes == 0, "an output of \(output.count) values is not rows of \(classes)")
        precondition(allowed == nil || allowed?.count == classes, "a mask of another network")
        guard let base = output.baseAddress else { return [] }
        let all = [UInt8](repeating: 1, count: allowed == nil ? classes : 0)
        return (allowed ?? all).withUnsafeBufferPointer { flags in
            (0..<(output.count / classes)).map { t in
                let row = base + t * classes
                var best = -1, next = -1
                for k in 0..<classes where flags[k] != 0 {
                    if best < 0 || row[k] > row[best] {
                        if best > 0, next < 0 || row[best] > row[next] { next = best }
                        best = k
                    } else if k > 0, next < 0 || row[k] > row[next] {
                        next = k
                    }
                }
                guard best >= 0 else { return Step(0, Double(row[0])) }
                return Step(best, Double(row[best]), runnerUp: next < 0 ? nil : (next, Double(row[next])))
            }
        }
    }

    /// One decoded character.
    public struct Symbol: Equatable, Sendable {
        public var text: String
        /// The probability of the run's first step (the one greedy decoding keeps).
        public var probability: Double
        /// The character the network ranked next at the run's steps (the likeliest
        /// runner-up of them that is another character, not a space), and its probability.
        public var runnerUp: RunnerUp?
        /// The run of steps where this class was taken.
        public var steps: Range<Int>
        /// The stretch of the line it stands for, in steps (fractional): centred on its
        /// run, a pitch wide, never past the midpoint to a neighbour's centre nor outside
        /// the line.
        public var span: ClosedRange<Double>
    }

    /// A symbol's runner-up.
    public struct RunnerUp: Equatable, Sendable {
        public var text: String
        public var probability: Double
    }

    /// One word: symbols between whitespace.
    public struct Word: Equatable, Sendable {
        public var symbols: [Symbol]
        public var text: String { symbols.map(\.text).joined() }
        /// Its symbols' runners-up, by character offset in `text`.
        public var alternatives: [CharacterAlternative] {
            var offset = 0
            return symbols.compactMap { symbol in
                defer { offset += symbol.text.count }
                guard let runnerUp = symbol.runnerUp, symbol.text.count == 1, runnerUp.text.count == 1 else { return nil }
                return CharacterAlternative(offset: offset, character: Character(runnerUp.text), probability: runnerUp.probability)
            }
        }
        /// The mean probability of its symbols.
        public var confidence: Double { symbols.isEmpty ? 0 : symbols.map(\.probability).reduce(0, +) / Double(symbols.count) }
        /// From its first symbol's span to its last's.
        public var span: ClosedRange<Double> {
            (symbols.first?.span.lowerBound ?? 0)...(symbols.last?.span.upperBound ?? 0)
        }
    }

    /// A decoded line.
    public struct Line: Equatable, Sendable {
        public var words: [Word]
        /// The mean probability of every kept symbol, spaces included (0 when none).
        public var confidence: Double
        public var text: String { words.map(\.text).joined(separator: " ") }

        public init(words: [Word], confidence: Double) {
            self.words = words
            self.confidence = confidence
        }
    }

    /// Decodes `steps`.
    /// - Parameters:
    ///   - characters: the model's characters: class i (1 ≤ i ≤ count) is `characters[i − 1]`;
    ///     class 0 is blank and class `characters.count + 1` a space.
    ///   - extent: the steps that show the line (the rest is padding): spans end there.
    /// - Returns: the words and the line's confidence.
    ///
    /// A class outside 0...`characters.count + 1` is a programmer error (the network and
    /// its character list disagree; ``NeuralLineEngine`` checks that when it loads).
    public static func decode(_ steps: [Step], characters: [String], extent: Double? = nil) -> Line {
        let space = characters.count + 1
        // Collapse runs, drop blanks.
        var kept: [(text: String, probability: Double, steps: Range<Int>, runnerUp: RunnerUp?)] = []
        var previous = -1
        for (index, step) in steps.enumerated() {
            precondition(step.classIndex >= 0 && step.classIndex <= space, "class \(step.classIndex) outside the model's \(space + 1)")
            defer { previous = step.classIndex }
            // The step's runner-up, when it is another character.
            let runnerUp = step.runnerUp.flatMap { other -> RunnerUp? in
                guard other.classIndex > 0, other.classIndex < space, other.classIndex != step.classIndex else { return nil }
                return RunnerUp(text: characters[other.classIndex - 1], probability: other.probability)
            }
            if step.classIndex == previous {
                if step.classIndex != 0, !kept.isEmpty {
                    kept[kept.count - 1].steps = kept[kept.count - 1].steps.lowerBound..<(index + 1)
                    if let runnerUp, runnerUp.probability > kept[kept.count - 1].runnerUp?.probability ?? 0 { kept[kept.count - 1].runnerUp = runnerUp }
                }
                continue
            }
            guard step.classIndex != 0 else { continue }
            let text = step.classIndex == space ? " " : characters[step.classIndex - 1]
            kept.append((text, step.probability, index..<(index + 1), runnerUp))
        }
        guard !kept.isEmpty else { return Line(words: [], confidence: 0) }
        let confidence = kept.map(\.probability).reduce(0, +) / Double(kept.count)

        // Spans: each symbol's centre ± half the line's pitch (the median distance between
        // neighbouring centres), cut at the midpoints between neighbours.
        let centres = kept.map { Double($0.steps.lowerBound + $0.steps.upperBound) / 2 }
        let gaps = zip(centres.dropFirst(), centres).map { $0 - $1 }.sorted()
        let pitch = gaps.isEmpty ? defaultPitch : max(1, gaps[gaps.count / 2])
        let end = extent ?? Double(steps.count)
        var words: [Word] = []
        var current: [Symbol] = []
        for (index, symbol) in kept.enumerated() {
            if symbol.text.allSatisfy(\.isWhitespace) {
                if !current.isEmpty { words.append(Word(symbols: current)) }
                current = []
                continue
            }
            var low = centres[index] - pitch / 2, high = centres[index] + pitch / 2
            if index > 0 { low = max(low, (centres[index - 1] + centres[index]) / 2) }
            if index + 1 < kept.count { high = min(high, (centres[index] + centres[index + 1]) / 2) }
            low = min(max(low, 0), end)
            high = min(max(high, low), end)
            current.append(Symbol(text: symbol.text, probability: symbol.probability, runnerUp: symbol.runnerUp, steps: symbol.steps,
                                  span: low...high))
        }
        if !current.isEmpty { words.append(Word(symbols: current)) }
        return Line(words: words, confidence: confidence)
    }
}
