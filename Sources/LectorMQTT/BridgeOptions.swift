import Foundation
import LectorSystem

/// `lector-mqtt`'s command line.
public struct BridgeOptions: Equatable, Sendable {
    /// What the flags say (they override the configuration file).
    public var settings = BridgeSettings()
    /// `--config FILE`; nil: /etc/lector/mqtt.conf when it exists.
    public var configPath: String?
    public var showHelp = false
    public var showVersion = false

    public init() {}

    /// `lector-mqtt --help`.
    public static let usage = """
    Usage: lector-mqtt --socket PATH --broker mqtt://HOST:PORT [options]

    Publishes what lectord reads, per camera, to an MQTT broker, with Home Assistant discovery.

    lectord:
      --socket PATH                lectord's socket (default $LECTOR_SOCKET, /run/lector/lector.sock, $XDG_RUNTIME_DIR/lector.sock or /tmp/lector-UID/lector.sock).

    Broker:
      --broker URL                 mqtt://HOST[:PORT] (default port 1883) or mqtts://HOST[:PORT] (TLS, 8883); default mqtt://localhost.
      --port N                     The broker's port, overriding the URL's.
      --client-id ID               MQTT client id (default lector-mqtt-HOSTNAME).
      --username NAME              User name to log in with.
      --password-file FILE         File holding the password (default $CREDENTIALS_DIRECTORY/mqtt-password when present).
      --ca-file FILE               CA certificate(s) that sign the broker's certificate (TLS).
      --ca-path DIR                Folder of CA certificates (TLS; default /etc/ssl/certs when no --ca-file).
      --cert-file FILE             Client certificate for TLS client authentication.
      --key-file FILE              The client certificate's private key.
      --keepalive SECONDS          MQTT keepalive, 5-65535 (default 30).

    Topics:
      --prefix P                   Root of every topic (default lector).
      --hostname H                 This machine's level under the prefix (default the host name).
      --qos N                      QoS of text and status messages, 0-2 (default 0; tracks and commands use 1).
      --status-interval SECONDS    Publish each camera's status at most this often (default 10).
      --discovery on|off           Publish Home Assistant discovery (default on).
      --discovery-prefix P         Home Assistant's discovery prefix (default homeassistant).
      --queue-size N               Messages waiting for a slow broker before the oldest text/status are dropped (default 256).

    General:
      --config FILE                Configuration file (default /etc/lector/mqtt.conf when present).
      --log-level L                debug|info|notice|warning|error (default info).
      --help                       Show this help.
      --version                    Show the version.
    """

    /// The flags that take a value, by their config key.
    private static let valueFlags: [String: String] = [
        "--socket": "socket", "--broker": "broker", "--port": "port", "--client-id": "client_id",
        "--username": "username", "--password-file": "password_file", "--ca-file": "ca_file", "--ca-path": "ca_path",
        "--cert-file": "cert_file", "--key-file": "key_file", "--keepalive": "keepalive", "--prefix": "prefix",
        "--hostname": "hostname", "--qos": "qos", "--status-interval": "status_interval", "--discovery": "discovery",
        "--discovery-prefix": "discovery_prefix", "--queue-size": "queue_size", "--log-level": "log_level",
    ]

    /// Parses `lector-mqtt`'s arguments (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> BridgeOptions {
        var options = BridgeOptions()
        var scanner = ArgumentScanner(arguments)
        while let argument = scanner.next() {
            switch argument {
            case "--help", "-h": options.showHelp = try scanner.flag(argument)
            case "--version": options.showVersion = try scanner.flag(argument)
            case "--config": options.configPath = try scanner.value(for: argument)
            case "--password":
                throw UsageError("--password would show the password to every user (ps); use --password-file FILE")
            default:
                guard let key = valueFlags[argument] else {
                    throw UsageError(argument.hasPrefix("-") ? "unknown option \(argument)" : "unexpected argument '\(argument)'")
                }
                let value = try scanner.value(for: argument)
                do {
                    try SettingSyntax.set(key, value, into: &options.settings)
                } catch {
                    throw UsageError("\(argument) \(error.message)")
                }
            }
        }
        return options
    }
}
