/// A meter rule's sanity checks (`monotonic`, `max_rate`, `reset_after`): whether a new
/// reading can be the meter's next value. A reading that goes down (with `monotonic`),
/// or rises faster than `max_rate` units per hour since the last accepted one, is
/// rejected; `reset_after` rejected readings in a row that agree with each other (each a
/// sane next value of the one before) are a meter really replaced or reset, and the last
/// of them is accepted. So is the first value: with nothing accepted yet, the same value
/// read in `reset_after` frames (``saw(_:at:)``; a meter that moves once an hour has a
/// value within a second of being seen), or `reset_after` readings in a row that agree
/// with each other (one misread settled by the vote, a seven-segment 3 read as 8, does
/// not become the meter's value). Pure: times are seconds on one monotonic clock, given
/// by the caller.
public struct MeterCheck: Sendable {
    /// Why a reading was not accepted: MATCH `rejected`.
    public enum Rejection: String, Sendable, Equatable {
        /// The matched text holds no number.
        case notANumber = "not_a_number"
        /// Lower than the last accepted value (`monotonic`).
        case wentDown = "went_down"
        /// Higher than `max_rate` allows since the last accepted value.
        case tooFast = "too_fast"
        /// No value accepted yet, and not yet `reset_after` agreeing readings.
        case unconfirmed
        /// Fewer digits than the display's positions (`digits`): a digit missed, not a smaller value.
        case missingDigit = "missing_digit"
        /// More digits than the display has (`digits`), or than a meter value can hold (15).
        case tooManyDigits = "too_many_digits"
    }

    public let monotonic: Bool
    /// Units per hour; nil: no limit.
    public let maximumRate: Double?
    public let resetAfter: Int
    /// The last accepted value and when.
    public private(set) var last: (value: Double, time: Double)?
    /// Rejected readings in a row that agree with each other.
    private var chain: [(value: Double, time: Double)] = []
    /// With nothing accepted yet: the last value judged, and in how many frames it was read.
    public private(set) var candidate: (value: Double, frames: Int)?

    public init(monotonic: Bool, maximumRate: Double?, resetAfter: Int) {
        self.monotonic = monotonic
        self.maximumRate = maximumRate
        self.resetAfter = max(1, resetAfter)
    }

    /// The number a meter reading shows: its digits, with one `.` or `,` as the decimal
    /// point (spaces left out); nil when there is none, or it is not finite as a Double.
    public static func value(of text: String) -> Double? {
        var digits = ""
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else if character == "." || character == "," {
                guard !digits.contains(".") else { return nil }
                digits.append(".")
            } else if !character.isWhitespace {
                return nil
            }
        }
        guard digits.contains(where: \.isNumber), let value = Double(digits), value.isFinite else { return nil }
        return value
    }

    /// Judges `value` read at `time`: nil when accepted (it becomes the last value),
    /// else why not.
    public mutating func judge(_ value: Double?, at time: Double) -> Rejection? {
        guard let value else { return .notANumber }
        let problem: Rejection
        if let last {
            guard let found = self.problem(from: last, to: (value, time)) else {
                accept(value, at: time)
                return nil
            }
            problem = found
        } else {
            if candidate?.value != value { candidate = (value, 1) }
            if let candidate, candidate.frames >= resetAfter {
                accept(value, at: time)
                return nil
            }
            problem = .unconfirmed
        }
        if let previous = chain.last, self.problem(from: previous, to: (value, time)) == nil {
            chain.append((value, time))
        } else {
            chain = [(value, time)]
        }
        if chain.count >= resetAfter {
            accept(value, at: time)
            return nil
        }
        return problem
    }

    /// A frame read `value` (once per frame, a frame's reading of the meter's place):
    /// with nothing accepted yet, the value judged last read in its `reset_after`th frame
    /// is accepted (true: it is now the last value).
    public mutating func saw(_ value: Double, at time: Double) -> Bool {
        guard last == nil, var candidate, candidate.value == value else { return false }
        candidate.frames += 1
        self.candidate = candidate
        guard candidate.frames >= resetAfter else { return false }
        accept(value, at: time)
        return true
    }

    /// Takes `value` at `time` as the last accepted value (a rule reloaded keeps its
    /// meter's; one restored from the history at start).
    public mutating func remember(_ value: Double, at time: Double) { accept(value, at: time) }

    private mutating func accept(_ value: Double, at time: Double) {
        last = (value, time)
        chain = []
        candidate = nil
    }

    /// Why `next` cannot follow `earlier`, or nil when it can.
    private func problem(from earlier: (value: Double, time: Double), to next: (value: Double, time: Double)) -> Rejection? {
        if monotonic, next.value < earlier.value { return .wentDown }
        if let maximumRate {
            let hours = max(0, next.time - earlier.time) / 3600
            if next.value - earlier.value > maximumRate * hours { return .tooFast }
        }
        return nil
    }
}
