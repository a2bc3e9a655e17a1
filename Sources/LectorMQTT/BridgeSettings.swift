import Foundation
import LectorSystem

/// Everything the bridge can be told, by flag or by /etc/lector/mqtt.conf; nil means
/// "not said here" (``BridgeOptionTable`` says how each is written). Flags override the
/// file (``overriding(_:)``); ``BridgeConfiguration`` fills in the defaults.
public struct BridgeSettings: Equatable, Sendable {
    public var socketPath: String?
    public var broker: BrokerAddress?
    public var port: Int?
    public var clientID: String?
    public var username: String?
    /// A file holding the password (never the password itself on the command line).
    public var passwordFile: String?
    public var caFile: String?
    public var caPath: String?
    public var certFile: String?
    public var keyFile: String?
    public var prefix: String?
    public var hostname: String?
    public var discovery: Bool?
    public var discoveryPrefix: String?
    /// Whether QR codes and barcodes (CODE) are watched and published.
    public var codes: Bool?
    public var qos: Int?
    public var statusInterval: Double?
    public var keepalive: Int?
    public var queueSize: Int?
    public var logLevel: Logger.Level?

    public init() {}

    /// These settings, with every value `other` gives replacing this one's.
    public func overriding(_ other: BridgeSettings) -> BridgeSettings {
        var merged = BridgeOptions(), flags = BridgeOptions(), unset = BridgeOptions()
        merged.settings = self
        flags.settings = other
        for option in BridgeOptionTable.options where option.key != nil {
            if option.access.describe(flags) != option.access.describe(unset) { option.access.copy(&merged, flags) }
        }
        return merged.settings
    }

    /// Checks a prefix or host name given by the user: one or more topic levels
    /// without wildcards.
    static func validTopicPart(_ text: String) -> Bool {
        !text.isEmpty && !text.contains("+") && !text.contains("#") && !text.hasPrefix("/") && !text.hasSuffix("/")
            && !text.contains("//") && !text.contains("\u{0}")
    }
}
