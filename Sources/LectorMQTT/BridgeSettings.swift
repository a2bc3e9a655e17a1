import Foundation
import LectorSystem

/// Everything the bridge can be told, by flag or by /etc/lector/mqtt.conf; nil means
/// "not said here". Flags override the file (``overriding(_:)``); ``BridgeConfiguration``
/// fills in the defaults.
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
    public var qos: Int?
    public var statusInterval: Double?
    public var keepalive: Int?
    public var queueSize: Int?
    public var logLevel: Logger.Level?

    public init() {}

    /// These settings, with every value `other` gives replacing this one's.
    public func overriding(_ other: BridgeSettings) -> BridgeSettings {
        var merged = self
        merged.socketPath = other.socketPath ?? socketPath
        merged.broker = other.broker ?? broker
        merged.port = other.port ?? port
        merged.clientID = other.clientID ?? clientID
        merged.username = other.username ?? username
        merged.passwordFile = other.passwordFile ?? passwordFile
        merged.caFile = other.caFile ?? caFile
        merged.caPath = other.caPath ?? caPath
        merged.certFile = other.certFile ?? certFile
        merged.keyFile = other.keyFile ?? keyFile
        merged.prefix = other.prefix ?? prefix
        merged.hostname = other.hostname ?? hostname
        merged.discovery = other.discovery ?? discovery
        merged.discoveryPrefix = other.discoveryPrefix ?? discoveryPrefix
        merged.qos = other.qos ?? qos
        merged.statusInterval = other.statusInterval ?? statusInterval
        merged.keepalive = other.keepalive ?? keepalive
        merged.queueSize = other.queueSize ?? queueSize
        merged.logLevel = other.logLevel ?? logLevel
        return merged
    }

    /// Checks a prefix or host name given by the user: one or more topic levels
    /// without wildcards.
    static func validTopicPart(_ text: String) -> Bool {
        !text.isEmpty && !text.contains("+") && !text.contains("#") && !text.hasPrefix("/") && !text.hasSuffix("/")
            && !text.contains("//") && !text.contains("\u{0}")
    }
}

/// A setting's value as written (flag value or config value) and how to read it; shared by
/// ``BridgeOptions`` and ``BridgeConfigFile`` so both accept the same words.
enum SettingSyntax {
    static let keys = ["socket", "broker", "port", "client_id", "username", "password_file", "ca_file", "ca_path",
                       "cert_file", "key_file", "prefix", "hostname", "discovery", "discovery_prefix", "qos",
                       "status_interval", "keepalive", "queue_size", "log_level"]

    /// Sets `key` (config spelling) from `value`; the error message names what is expected.
    static func set(_ key: String, _ value: String, into settings: inout BridgeSettings) throws(SettingError) {
        func nonEmpty() throws(SettingError) -> String {
            guard !value.isEmpty else { throw SettingError("needs a value") }
            return value
        }
        func integer(_ range: ClosedRange<Int>) throws(SettingError) -> Int {
            guard let number = Int(value), range.contains(number) else {
                throw SettingError("must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
            }
            return number
        }
        func topic() throws(SettingError) -> String {
            guard BridgeSettings.validTopicPart(value) else {
                throw SettingError("must be topic levels without +, # or a leading/trailing /, not '\(value)'")
            }
            return value
        }
        switch key {
        case "socket": settings.socketPath = try nonEmpty()
        case "broker":
            guard let address = BrokerAddress(url: value) else {
                throw SettingError("must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT], not '\(value)'")
            }
            settings.broker = address
        case "port": settings.port = try integer(1...65535)
        case "client_id":
            guard !value.isEmpty, value.utf8.count <= 65535 else { throw SettingError("needs a value") }
            settings.clientID = value
        case "username": settings.username = try nonEmpty()
        case "password_file": settings.passwordFile = try nonEmpty()
        case "ca_file": settings.caFile = try nonEmpty()
        case "ca_path": settings.caPath = try nonEmpty()
        case "cert_file": settings.certFile = try nonEmpty()
        case "key_file": settings.keyFile = try nonEmpty()
        case "prefix": settings.prefix = try topic()
        case "hostname": settings.hostname = try topic()
        case "discovery":
            switch value.lowercased() {
            case "true", "yes", "on", "1": settings.discovery = true
            case "false", "no", "off", "0": settings.discovery = false
            default: throw SettingError("must be on or off, not '\(value)'")
            }
        case "discovery_prefix": settings.discoveryPrefix = try topic()
        case "qos": settings.qos = try integer(0...2)
        case "status_interval":
            guard let seconds = Double(value), (0.1...86400).contains(seconds) else {
                throw SettingError("must be a number of seconds from 0.1 to 86400, not '\(value)'")
            }
            settings.statusInterval = seconds
        case "keepalive": settings.keepalive = try integer(5...65535)
        case "queue_size": settings.queueSize = try integer(1...1_000_000)
        case "log_level":
            guard let level = Logger.Level(name: value) else {
                throw SettingError("must be one of \(Logger.Level.allCases.map(\.name).joined(separator: "|")), not '\(value)'")
            }
            settings.logLevel = level
        default:
            throw SettingError("unknown key; known: \(keys.joined(separator: ", "))")
        }
    }
}

/// Why one setting's value was refused (the caller adds where it came from).
struct SettingError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
