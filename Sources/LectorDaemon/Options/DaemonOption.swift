import LectorOptions
import LectorProtocol
import LectorSystem

/// One `lectord` option, defined once: its flag, its configuration-file key, where it
/// belongs, how its value is written and checked, its help sentence, whether SIGHUP can
/// apply it, and how it sets the options. The command line, the configuration file,
/// `--help`, docs/configuration.md and SIGHUP reload all read ``DaemonOptionTable``.
public struct DaemonOption: TableOption {
    /// Where an option belongs.
    public enum Scope: Sendable {
        /// The daemon as a whole: before the first `[camera]` (or under `[daemon]`).
        case daemon
        /// One camera: under `[camera NAME]`; as a flag, every camera.
        case camera
        /// The command line only (`--help`, `--stdout`, …): no configuration key.
        case commandLine
    }

    /// What SIGHUP can do with a changed value: `live` is applied at once, without
    /// reopening the socket or the camera (a camera's recognizer is rebuilt; the next
    /// frame uses it); `restart` is logged as needing a restart of lectord.
    public typealias Reload = OptionReload

    /// The groups of `--help`, in order.
    public enum Group: String, Sendable, CaseIterable {
        case sources = "Sources (one of)"
        case capture = "Capture (V4L2)"
        case network = "Network cameras"
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

    /// Its flag, key, help and reload, as every program's options say them.
    public let spec: OptionSpec
    public let group: Group
    /// Names the camera's source (`--device`, `--replay`, `--demo`): a `[camera]` has one.
    public let isSource: Bool
    let target: Target

    /// - Parameters:
    ///   - inFile: whether the configuration file knows it (its key follows from the flag, or is `key`).
    init(_ flag: String, aliases: [String] = [], inFile: Bool = true, key: String? = nil, _ group: Group, _ valueName: String?,
         _ help: String, reload: Reload = .restart, example: String = "true", isSource: Bool = false, _ target: Target) {
        spec = OptionSpec(flag, aliases: aliases, inFile: inFile, key: key, group: group.rawValue, valueName: valueName, help: help,
                          reload: reload, example: example)
        self.group = group
        self.isSource = isSource
        self.target = target
    }

    /// `--kebab-case`.
    public var flag: String { spec.flag }
    /// Other spellings on the command line (`-h`).
    public var aliases: [String] { spec.aliases }
    /// The configuration key (the flag without `--`, `-` written `_`); nil: command line only.
    public var key: String? { spec.key }
    /// The value's name in `--help`; nil: a switch.
    public var valueName: String? { spec.valueName }
    /// One sentence ending in a period.
    public var help: String { spec.help }
    public var reload: Reload { spec.reload ?? .restart }
    /// A valid value other than the default (tests feed it through both parsers).
    public var example: String { spec.example }

    public var scope: Scope {
        guard key != nil else { return .commandLine }
        if case .camera = target { return .camera }
        return .daemon
    }

    /// Whether it takes no value on the command line.
    public var isSwitch: Bool { spec.isSwitch }

    /// Sets the option from `text` (a switch given as a flag passes "true").
    func set(_ text: String, daemon: inout DaemonOptions, camera: inout CameraSettings) throws(OptionValueError) {
        switch target {
        case let .daemon(access): try access.set(&daemon, text)
        case let .camera(access): try access.set(&camera, text)
        }
    }
}
