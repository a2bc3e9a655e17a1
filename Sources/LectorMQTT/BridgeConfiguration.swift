import Foundation
import LectorClient
import LectorSystem

/// Why the bridge cannot start with the settings it was given (exit status 2).
public struct BridgeSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The settings with every default filled in, the password read: what the bridge runs with.
public struct BridgeConfiguration: Sendable {
    public var socketPath: String
    public var broker: BrokerAddress
    public var clientID: String
    public var username: String?
    public var password: String?
    public var caFile: String?
    public var caPath: String?
    public var certFile: String?
    public var keyFile: String?
    /// `<prefix>/<hostname>`: the root of this bridge's topics.
    public var root: String
    public var hostname: String
    public var discovery: Bool
    public var discoveryPrefix: String
    /// Watch lectord's CODE messages and publish them (`…/code`, `…/code/event`, their entities).
    public var codes: Bool
    public var qos: Int32
    public var statusInterval: Double
    public var keepalive: Int
    public var queueSize: Int
    public var logLevel: Logger.Level

    /// Resolves `settings`.
    /// - Parameters:
    ///   - environment: for the default socket and `$CREDENTIALS_DIRECTORY`.
    ///   - machineName: the host name to use when none is given.
    public init(_ settings: BridgeSettings, environment: [String: String] = ProcessInfo.processInfo.environment,
                machineName: String) throws(BridgeSetupError) {
        socketPath = settings.socketPath ?? LectordSocket.defaultPath(environment: environment)
        var broker = settings.broker ?? BrokerAddress(host: "localhost", port: 1883, tls: false)
        if let port = settings.port { broker.port = port }
        self.broker = broker
        hostname = settings.hostname ?? TopicLevel.safe(machineName)
        root = (settings.prefix ?? "lector") + "/" + hostname
        clientID = settings.clientID ?? "lector-mqtt-" + TopicLevel.safe(hostname)
        username = settings.username
        var passwordFile = settings.passwordFile
        if passwordFile == nil, let credentials = environment["CREDENTIALS_DIRECTORY"],
           FileManager.default.fileExists(atPath: credentials + "/mqtt-password") {
            passwordFile = credentials + "/mqtt-password"
        }
        if let passwordFile {
            guard let data = FileManager.default.contents(atPath: passwordFile),
                  let text = String(data: data, encoding: .utf8) else {
                throw BridgeSetupError("cannot read the password file \(passwordFile)")
            }
            // One line: a trailing newline is not part of the password.
            password = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            if username == nil { throw BridgeSetupError("a password needs a user name (--username or username =)") }
        }
        caFile = settings.caFile
        caPath = settings.caPath
        certFile = settings.certFile
        keyFile = settings.keyFile
        let tlsFiles = [caFile, caPath, certFile, keyFile].contains { $0 != nil }
        if tlsFiles && !broker.tls {
            throw BridgeSetupError("TLS files are given but the broker URL is mqtt://; use mqtts://")
        }
        if broker.tls && caFile == nil && caPath == nil { caPath = "/etc/ssl/certs" }
        if (certFile == nil) != (keyFile == nil) {
            throw BridgeSetupError("a client certificate needs both --cert-file and --key-file")
        }
        for file in [caFile, certFile, keyFile].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: file) {
            throw BridgeSetupError("cannot read \(file)")
        }
        discovery = settings.discovery ?? true
        discoveryPrefix = settings.discoveryPrefix ?? "homeassistant"
        codes = settings.codes ?? true
        qos = Int32(settings.qos ?? 0)
        statusInterval = settings.statusInterval ?? 10
        keepalive = settings.keepalive ?? 30
        queueSize = settings.queueSize ?? 256
        logLevel = settings.logLevel ?? .info
    }

    /// `<prefix>/<hostname>/availability`.
    public var availabilityTopic: String { root + "/availability" }
}
