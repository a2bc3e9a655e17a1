import LectorSystem

/// Turns an option's text into its value, with the message the user sees when it
/// does not fit.
public struct ValueParser<Value>: Sendable {
    /// Reads `text`; the error's message names what is expected.
    public let parse: @Sendable (String) throws(OptionValueError) -> Value

    public init(_ parse: @escaping @Sendable (String) throws(OptionValueError) -> Value) { self.parse = parse }

    /// This parser's value passed through `transform`.
    public func map<T>(_ transform: @escaping @Sendable (Value) -> T) -> ValueParser<T> {
        ValueParser<T> { (text: String) throws(OptionValueError) -> T in transform(try parse(text)) }
    }

    /// One of a fixed set of words.
    /// - Parameters:
    ///   - choices: the words (or ranges) the message lists.
    ///   - parse: the value of a word, nil when it is none of them.
    public static func choice(_ choices: [String], _ parse: @escaping @Sendable (String) -> Value?) -> Self {
        Self { (text: String) throws(OptionValueError) -> Value in
            guard let value = parse(text) else {
                throw OptionValueError("must be one of \(choices.joined(separator: "|")), not \(UsageError.quoted(text))")
            }
            return value
        }
    }
}

extension ValueParser where Value == String {
    /// Any text but an empty one.
    public static var text: Self {
        Self { (text: String) throws(OptionValueError) -> String in
            guard !text.isEmpty else { throw OptionValueError("needs a value") }
            return text
        }
    }
}

extension ValueParser where Value == Int {
    /// A whole number within `range`.
    public static func integer(_ range: ClosedRange<Int>) -> Self {
        Self { (text: String) throws(OptionValueError) -> Int in
            guard let number = Int(text), range.contains(number) else {
                throw OptionValueError("must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(UsageError.quoted(text))")
            }
            return number
        }
    }
}

extension ValueParser where Value == Double {
    /// A number within `range`.
    public static func number(_ range: ClosedRange<Double>) -> Self {
        Self { (text: String) throws(OptionValueError) -> Double in
            guard let number = Double(text), range.contains(number) else {
                throw OptionValueError("must be a number from \(range.lowerBound) to \(range.upperBound), not \(UsageError.quoted(text))")
            }
            return number
        }
    }
}

extension ValueParser where Value == Bool {
    /// A switch: a flag passes "true"; a file says true/false, yes/no, on/off, 1/0.
    public static var bool: Self { bool(refusal: "must be true or false") }

    /// A switch whose refusal says `refusal` before `, not 'WORD'` (`must be on or off`).
    public static func bool(refusal: String) -> Self {
        Self { (text: String) throws(OptionValueError) -> Bool in
            switch text.lowercased() {
            case "true", "yes", "on", "1": return true
            case "false", "no", "off", "0": return false
            default: throw OptionValueError("\(refusal), not \(UsageError.quoted(text))")
            }
        }
    }
}

extension ValueParser where Value == Logger.Level {
    /// A log level by name (`debug|info|notice|warning|error`).
    public static var logLevel: Self {
        .choice(Logger.Level.allCases.map(\.name), Logger.Level.init(name:))
    }
}
