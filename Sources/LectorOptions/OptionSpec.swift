import Foundation

/// What SIGHUP can do with a changed value (programs that read their file again).
public enum OptionReload: Sendable {
    /// Applied at once.
    case live
    /// Logged as needing a restart.
    case restart
}

/// What a program says about one option, whatever it sets: its flag, its configuration
/// key, its `--help` line and what SIGHUP does with it.
public struct OptionSpec: Sendable {
    /// `--kebab-case`.
    public let flag: String
    /// Other spellings on the command line (`-h`).
    public let aliases: [String]
    /// The configuration key (the flag without `--`, `-` written `_`); nil: command line only.
    public let key: String?
    /// The heading of its `--help` group ("" for a program without groups).
    public let group: String
    /// The value's name in `--help` (`PATH`, `auto|1|2`); nil: a switch, which takes no
    /// value as a flag and `true`/`false` in a file.
    public let valueName: String?
    /// One sentence ending in a period.
    public let help: String
    /// What SIGHUP does with a changed value; nil for a program that does not reload.
    public let reload: OptionReload?
    /// A valid value other than the default (tests feed it through both parsers).
    public let example: String

    /// - Parameters:
    ///   - inFile: whether the configuration file knows it (its key follows from the flag).
    ///   - key: the configuration key when it does not follow from the flag (`--evidence`: `evidence_dir`).
    public init(_ flag: String, aliases: [String] = [], inFile: Bool, key: String? = nil, group: String, valueName: String?,
                help: String, reload: OptionReload? = nil, example: String = "true") {
        self.flag = flag
        self.aliases = aliases
        self.key = inFile ? key ?? Self.key(of: flag) : nil
        self.group = group
        self.valueName = valueName
        self.help = help
        self.reload = reload
        self.example = example
    }

    /// The configuration key of `flag`: `--client-id` is `client_id`.
    public static func key(of flag: String) -> String {
        String(flag.dropFirst(2)).replacingOccurrences(of: "-", with: "_")
    }

    /// Whether it takes no value on the command line.
    public var isSwitch: Bool { valueName == nil }

    /// `--flag VALUE` (or `--flag` for a switch), as `--help` shows it.
    public var synopsis: String { valueName.map { "\(flag) \($0)" } ?? flag }
}

/// An entry of an ``OptionTable``: an ``OptionSpec`` and whatever the program needs to
/// apply it.
public protocol TableOption: Sendable {
    var spec: OptionSpec { get }
}
