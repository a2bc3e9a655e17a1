import LectorProtocol
import LectorSystem

/// One `lectord` option, defined once: its flag, its configuration-file key, where it
/// belongs, how its value is written and checked, its help sentence, whether SIGHUP can
/// apply it, and how it sets the options. The command line, the configuration file,
/// `--help`, README's option list and SIGHUP reload all read ``DaemonOptionTable``.
public struct DaemonOption: Sendable {
    /// Where an option belongs.
    public enum Scope: Sendable {
        /// The daemon as a whole: before the first `[camera]` (or under `[daemon]`).
        case daemon
        /// One camera: under `[camera NAME]`; as a flag, every camera.
        case camera
        /// The command line only (`--help`, `--stdout`, …): no configuration key.
        case commandLine
    }

    /// What SIGHUP can do with a changed value.
    public enum Reload: Sendable {
        /// Applied at once, without reopening the socket or the camera (a camera's
        /// recognizer is rebuilt; the next frame uses it).
        case live
        /// Logged as needing a restart of lectord.
        case restart
    }

    /// The groups of `--help`, in order.
    public enum Group: String, Sendable, CaseIterable {
        case sources = "Sources (one of)"
        case capture = "Capture (V4L2)"
        case replay = "Replay"
        case orientation = "Orientation (how the captured image is turned upright)"
        case recognition = "Recognition"
        case live = "Live text"
        case output = "Output"
        case server = "Server"
    }

    /// How the option reads and writes the settings it belongs to.
    enum Target: Sendable {
        case daemon(OptionAccess<DaemonOptions>)
        case camera(OptionAccess<CameraSettings>)
    }

    /// `--kebab-case`.
    public let flag: String
    /// Other spellings on the command line (`-h`).
    public let aliases: [String]
    /// The configuration key (the flag without `--`, `-` written `_`); nil: command line only.
    public let key: String?
    public let group: Group
    /// The value's name in `--help` (`PATH`, `auto|1|2`); nil: a switch, which takes no
    /// value as a flag and `true`/`false` in the file.
    public let valueName: String?
    /// One sentence ending in a period.
    public let help: String
    public let reload: Reload
    /// A valid value other than the default (tests feed it through both parsers).
    public let example: String
    /// Names the camera's source (`--device`, `--replay`, `--demo`): a `[camera]` has one.
    public let isSource: Bool
    let target: Target

    /// - Parameters:
    ///   - inFile: whether the configuration file knows it (its key follows from the flag).
    init(_ flag: String, aliases: [String] = [], inFile: Bool = true, _ group: Group, _ valueName: String?,
         _ help: String, reload: Reload = .restart, example: String = "true", isSource: Bool = false, _ target: Target) {
        self.flag = flag
        self.aliases = aliases
        key = inFile ? String(flag.dropFirst(2)).replacingOccurrences(of: "-", with: "_") : nil
        self.group = group
        self.valueName = valueName
        self.help = help
        self.reload = reload
        self.example = example
        self.isSource = isSource
        self.target = target
    }

    public var scope: Scope {
        guard key != nil else { return .commandLine }
        if case .camera = target { return .camera }
        return .daemon
    }

    /// Whether it takes no value on the command line.
    public var isSwitch: Bool { valueName == nil }

    /// Sets the option from `text` (a switch given as a flag passes "true").
    func set(_ text: String, daemon: inout DaemonOptions, camera: inout CameraSettings) throws(OptionValueError) {
        switch target {
        case let .daemon(access): try access.set(&daemon, text)
        case let .camera(access): try access.set(&camera, text)
        }
    }
}

/// A value that does not fit its option. The command line puts the flag before the
/// message, the configuration file its `file:line: key:`.
public struct OptionValueError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// How an option sets, copies and shows its value in `Root` (``DaemonOptions`` or
/// ``CameraSettings``).
struct OptionAccess<Root>: Sendable {
    /// Parses the text and stores the value.
    let set: @Sendable (inout Root, String) throws(OptionValueError) -> Void
    /// Copies the value from another root (a flag over the file; SIGHUP's live changes).
    let copy: @Sendable (inout Root, Root) -> Void
    /// The value as text, to compare two roots.
    let describe: @Sendable (Root) -> String

    /// A field set from a parsed value.
    static func value<Value>(_ path: WritableKeyPath<Root, Value> & Sendable, _ parser: ValueParser<Value>) -> Self {
        Self(set: { (root: inout Root, text: String) throws(OptionValueError) in root[keyPath: path] = try parser.parse(text) },
             copy: { $0[keyPath: path] = $1[keyPath: path] },
             describe: { String(describing: $0[keyPath: path]) })
    }

    /// An optional field (unset by default) set from a parsed value.
    static func optional<Value>(_ path: WritableKeyPath<Root, Value?> & Sendable, _ parser: ValueParser<Value>) -> Self {
        value(path, parser.map { Optional($0) })
    }
}

/// Turns an option's text into its value, with the message the user sees when it
/// does not fit.
struct ValueParser<Value>: Sendable {
    let parse: @Sendable (String) throws(OptionValueError) -> Value

    func map<T>(_ transform: @escaping @Sendable (Value) -> T) -> ValueParser<T> {
        ValueParser<T> { (text: String) throws(OptionValueError) -> T in transform(try parse(text)) }
    }

    /// One of a fixed set of words.
    static func choice(_ choices: [String], _ parse: @escaping @Sendable (String) -> Value?) -> Self {
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
    static var text: Self {
        Self { (text: String) throws(OptionValueError) -> String in
            guard !text.isEmpty else { throw OptionValueError("needs a value") }
            return text
        }
    }
}

extension ValueParser where Value == Int {
    static func integer(_ range: ClosedRange<Int>) -> Self {
        Self { (text: String) throws(OptionValueError) -> Int in
            guard let number = Int(text), range.contains(number) else {
                throw OptionValueError("must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(UsageError.quoted(text))")
            }
            return number
        }
    }
}

extension ValueParser where Value == Double {
    static func number(_ range: ClosedRange<Double>) -> Self {
        Self { (text: String) throws(OptionValueError) -> Double in
            guard let number = Double(text), range.contains(number) else {
                throw OptionValueError("must be a number from \(range.lowerBound) to \(range.upperBound), not \(UsageError.quoted(text))")
            }
            return number
        }
    }
}

extension ValueParser where Value == Bool {
    /// A switch: a flag passes "true"; the file says true/false, yes/no, on/off, 1/0.
    static var bool: Self {
        Self { (text: String) throws(OptionValueError) -> Bool in
            switch text.lowercased() {
            case "true", "yes", "on", "1": return true
            case "false", "no", "off", "0": return false
            default: throw OptionValueError("must be true or false, not \(UsageError.quoted(text))")
            }
        }
    }
}
