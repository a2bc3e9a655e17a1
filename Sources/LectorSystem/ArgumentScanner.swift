import Foundation

/// A command-line mistake: printed with the usage hint, exit status 2.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// `text` in single quotes for a message, cut after 60 characters (a value pasted by
    /// mistake can be megabytes long): `'xxx…' (10485760 bytes)`.
    public static func quoted(_ text: String) -> String {
        guard text.count > 60 else { return "'\(text)'" }
        return "'\(text.prefix(60))…' (\(text.utf8.count) bytes)"
    }
}

/// Walks `--kebab-case` options in swift-argument-parser's style, small: `--name value`
/// or `--name=value`, boolean flags, positional words.
public struct ArgumentScanner {
    private var arguments: [String]
    private var index = 0
    /// The value given inline as `--name=value`, waiting to be read.
    private var inlineValue: String?

    public init(_ arguments: [String]) { self.arguments = arguments }

    /// The next option or word, or nil at the end. An option's value (if it takes one)
    /// is read with ``value(for:)``.
    public mutating func next() -> String? {
        guard index < arguments.count else { return nil }
        let argument = arguments[index]
        index += 1
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            inlineValue = String(argument[argument.index(after: equals)...])
            return String(argument[..<equals])
        }
        inlineValue = nil
        return argument
    }

    /// The value of `option`, inline or the next argument.
    public mutating func value(for option: String) throws(UsageError) -> String {
        if let inlineValue {
            self.inlineValue = nil
            return inlineValue
        }
        guard index < arguments.count else { throw UsageError("\(option) needs a value") }
        index += 1
        return arguments[index - 1]
    }

    /// Fails if a boolean flag was given a value.
    public mutating func flag(_ option: String) throws(UsageError) -> Bool {
        guard inlineValue == nil else { throw UsageError("\(option) takes no value") }
        return true
    }

    public mutating func integer(for option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        let text = try value(for: option)
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(UsageError.quoted(text))")
        }
        return number
    }

    public mutating func number(for option: String, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        let text = try value(for: option)
        guard let number = Double(text), range.contains(number) else {
            throw UsageError("\(option) must be a number from \(range.lowerBound) to \(range.upperBound), not \(UsageError.quoted(text))")
        }
        return number
    }

    /// One of a fixed set of words.
    public mutating func choice<T>(for option: String, _ parse: (String) -> T?, choices: [String]) throws(UsageError) -> T {
        let text = try value(for: option)
        guard let value = parse(text) else {
            throw UsageError("\(option) must be one of \(choices.joined(separator: "|")), not \(UsageError.quoted(text))")
        }
        return value
    }
}
