/// A meter's display as its rule knows it (`decimals`, `digits`): a fixed decimal point
/// and a number of digit positions. The point is placed by the display, not by what was
/// read (a camera often loses a point of a few pixels: `265775` with one decimal is
/// `26577.5`), and a reading with fewer digits than the display has is missing one, not a
/// smaller value (leading zeros are digits of the display).
public struct MeterDisplay: Equatable, Sendable {
    /// Digits after the fixed decimal point (`decimals`); nil: the point as read.
    public var decimals: Int?
    /// The display's digit positions (`digits`); nil: any number of digits.
    public var digits: Int?

    /// The most digits a meter value may have without `digits`: all a Double holds exactly.
    public static let maximumDigits = 15

    public init(decimals: Int? = nil, digits: Int? = nil) {
        self.decimals = decimals
        self.digits = digits
    }

    /// Whether it says anything (a rule without `decimals` and `digits` reads as today).
    public var isGiven: Bool { decimals != nil || digits != nil }

    /// `text` as the display shows it: with `decimals`, a text that is a number (digits,
    /// spaces, at most one `.` or `,`) becomes its digits with the point `decimals` from
    /// the end, whether or not (and wherever) the point was read; any other text (and
    /// every text without `decimals`) as it is. `decimals = 0`: the digits alone.
    public func placed(_ text: String) -> String {
        guard let decimals else { return text }
        var numerals: [Character] = []
        var points = 0
        for character in text {
            if character.isASCII, character.isNumber {
                numerals.append(character)
            } else if character == "." || character == "," {
                points += 1
            } else if !character.isWhitespace {
                return text
            }
        }
        guard points <= 1, numerals.count > decimals else { return text }
        guard decimals > 0 else { return String(numerals) }
        return String(numerals.dropLast(decimals)) + "." + String(numerals.suffix(decimals))
    }

    /// Why a meter reading whose matched text is `matched` cannot be a value of this
    /// display (fewer digits than its positions, more than it has or than a Double holds
    /// exactly), or nil.
    public func rejection(of matched: String) -> MeterCheck.Rejection? {
        let count = matched.reduce(0) { $0 + ($1.isASCII && $1.isNumber ? 1 : 0) }
        if let digits, count < digits { return .missingDigit }
        if count > (digits ?? Self.maximumDigits) { return .tooManyDigits }
        return nil
    }

    /// How `--check-config` says it, or nil when nothing is given.
    public var summary: String? {
        var parts: [String] = []
        if let digits { parts.append("\(digits) digits") }
        if let decimals { parts.append("\(decimals) decimal\(decimals == 1 ? "" : "s") (the point placed whether or not it is read)") }
        return parts.isEmpty ? nil : "display " + parts.joined(separator: ", ")
    }
}
