import Foundation
import LectorOptions
import LectorSystem

/// `lector-mqtt`'s command line (its options: ``BridgeOptionTable``).
public struct BridgeOptions: Equatable, Sendable {
    /// What the flags say (they override the configuration file).
    public var settings = BridgeSettings()
    /// `--config FILE`; nil: /etc/lector/mqtt.conf when it exists.
    public var configPath: String?
    public var showHelp = false
    public var showVersion = false

    public init() {}

    /// `lector-mqtt --help`, generated from ``BridgeOptionTable``.
    public static var usage: String { BridgeOptionTable.table.usage }

    /// Parses `lector-mqtt`'s arguments (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> BridgeOptions {
        var options = BridgeOptions()
        _ = try BridgeOptionTable.table.parse(arguments, into: &options, unknown: OptionTable<Option<BridgeOptions>>.unknownArgument)
        return options
    }
}
