/// Every option of one program, once: its command line, its configuration file, its
/// `--help` (``usage``), its entry in docs/configuration.md (``markdown(extraColumns:)``)
/// and, where it reloads, SIGHUP read from here.
public struct OptionTable<Entry: TableOption>: Sendable {
    /// The program's name (`lector-mqtt`).
    public let program: String
    /// In `--help` order within each group.
    public let options: [Entry]
    /// How `--help` is laid out around the options.
    public let layout: HelpLayout
    /// Flags refused with a message of their own (`--password`: use a file).
    public let refusedFlags: [String: String]
    /// Configuration keys refused with a message of their own.
    public let refusedKeys: [String: String]
    /// The configuration file read when `--config` is not given; nil: the program has none.
    public let defaultConfigPath: String?

    public init(program: String, options: [Entry], layout: HelpLayout, defaultConfigPath: String? = nil,
                refusedFlags: [String: String] = [:], refusedKeys: [String: String] = [:]) {
        self.program = program
        self.defaultConfigPath = defaultConfigPath
        self.options = options
        self.layout = layout
        self.refusedFlags = refusedFlags
        self.refusedKeys = refusedKeys
    }

    /// The option `--flag` (or an alias).
    public func option(flag: String) -> Entry? {
        options.first { $0.spec.flag == flag || $0.spec.aliases.contains(flag) }
    }

    /// The option with configuration key `key`.
    public func option(key: String) -> Entry? { options.first { $0.spec.key == key } }

    /// The configuration keys, in table order.
    public var keys: [String] { options.compactMap(\.spec.key) }

    /// The groups of `--help`, in the order their first option appears.
    public var groups: [String] {
        var groups: [String] = []
        for option in options where !groups.contains(option.spec.group) { groups.append(option.spec.group) }
        return groups
    }

    /// `--help`: the layout's header, each group with its options, the footer.
    public var usage: String {
        var lines = layout.header
        for group in layout.groupOrder ?? groups {
            lines.append("")
            if !group.isEmpty { lines.append("\(group):") }
            for option in options where option.spec.group == group { lines += layout.line(option.spec) }
        }
        return (lines + layout.footer).joined(separator: "\n")
    }
}
