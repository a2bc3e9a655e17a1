/// An option of a program whose options all set one value, `Root` (lector-mqtt's
/// ``OptionTable`` sets its options, lector-http's its options).
public struct Option<Root>: TableOption {
    public let spec: OptionSpec
    /// How it sets `Root`.
    public let access: OptionAccess<Root>

    /// - Parameters:
    ///   - inFile: whether the configuration file knows it (its key follows from the flag).
    public init(_ flag: String, aliases: [String] = [], inFile: Bool = true, _ group: String, _ valueName: String?, _ help: String,
                example: String = "true", _ access: OptionAccess<Root>) {
        spec = OptionSpec(flag, aliases: aliases, inFile: inFile, group: group, valueName: valueName, help: help, example: example)
        self.access = access
    }

    public var flag: String { spec.flag }
    public var key: String? { spec.key }
}
