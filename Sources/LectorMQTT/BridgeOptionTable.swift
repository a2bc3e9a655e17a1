import LectorClient
import LectorOptions
import LectorSystem

/// Every `lector-mqtt` option, once: the command line (``BridgeOptions/parse(_:)``),
/// /etc/lector/mqtt.conf (``BridgeConfigFile``), flags over the file
/// (``BridgeSettings/overriding(_:)``), `--help`, the man page and docs/configuration.md
/// read this table. A file key is the flag without `--`, `-` written `_`. The defaults
/// are filled in by ``BridgeConfiguration``.
public enum BridgeOptionTable {
    private typealias Entry = Option<BridgeOptions>

    /// In file-key order (mqtt.conf's "known:" list); `--help` groups them.
    public static let options: [Option<BridgeOptions>] = [
        Entry("--socket", "lectord", "PATH",
              "lectord's socket (default \(LectordSocket.searched)).",
              example: "/tmp/lector.sock", .optional(\.settings.socketPath, .text)),
        Entry("--broker", "Broker", "URL",
              "mqtt://HOST[:PORT] (default port 1883) or mqtts://HOST[:PORT] (TLS, 8883); default mqtt://localhost.",
              example: "mqtts://broker.lan", .optional(\.settings.broker, broker)),
        Entry("--port", "Broker", "N", "The broker's port, overriding the URL's.", example: "1999",
              .optional(\.settings.port, .integer(1...65535))),
        Entry("--client-id", "Broker", "ID", "MQTT client id (default lector-mqtt-HOSTNAME).", example: "bridge-1",
              .optional(\.settings.clientID, clientID)),
        Entry("--username", "Broker", "NAME", "User name to log in with.", example: "lector", .optional(\.settings.username, .text)),
        Entry("--password-file", "Broker", "FILE", "File holding the password (default $CREDENTIALS_DIRECTORY/mqtt-password when present).",
              example: "/etc/lector/mqtt.password", .optional(\.settings.passwordFile, .text)),
        Entry("--ca-file", "Broker", "FILE", "CA certificate(s) that sign the broker's certificate (TLS).", example: "/etc/lector/ca.pem",
              .optional(\.settings.caFile, .text)),
        Entry("--ca-path", "Broker", "DIR", "Folder of CA certificates (TLS; default /etc/ssl/certs when no --ca-file).",
              example: "/etc/lector/ca", .optional(\.settings.caPath, .text)),
        Entry("--cert-file", "Broker", "FILE", "Client certificate for TLS client authentication.", example: "/etc/lector/client.pem",
              .optional(\.settings.certFile, .text)),
        Entry("--key-file", "Broker", "FILE", "The client certificate's private key.", example: "/etc/lector/client.key",
              .optional(\.settings.keyFile, .text)),
        Entry("--prefix", "Topics", "P", "Root of every topic (default lector).", example: "home", .optional(\.settings.prefix, topic)),
        Entry("--hostname", "Topics", "H", "This machine's level under the prefix (default the host name).", example: "attic",
              .optional(\.settings.hostname, topic)),
        Entry("--discovery", "Topics", "on|off", "Publish Home Assistant discovery (default on).", example: "off",
              .optional(\.settings.discovery, .bool(refusal: "must be on or off"))),
        Entry("--discovery-prefix", "Topics", "P", "Home Assistant's discovery prefix (default homeassistant).", example: "ha",
              .optional(\.settings.discoveryPrefix, topic)),
        Entry("--codes", "Topics", "on|off",
              "Publish the QR codes and barcodes lectord reads (topics code, code/event) and their Home Assistant entities (default on).",
              example: "off", .optional(\.settings.codes, .bool(refusal: "must be on or off"))),
        Entry("--qos", "Topics", "N", "QoS of text and status messages, 0-2 (default 0; tracks and commands use 1).", example: "1",
              .optional(\.settings.qos, .integer(0...2))),
        Entry("--status-interval", "Topics", "SECONDS", "Publish each camera's status at most this often (default 10).", example: "2.5",
              .optional(\.settings.statusInterval, statusInterval)),
        Entry("--keepalive", "Broker", "SECONDS", "MQTT keepalive, 5-65535 (default 30).", example: "60",
              .optional(\.settings.keepalive, .integer(5...65535))),
        Entry("--queue-size", "Topics", "N", "Messages waiting for a slow broker before the oldest text/status are dropped (default 256).",
              example: "1024", .optional(\.settings.queueSize, .integer(1...1_000_000))),
        Entry("--config", inFile: false, "General", "FILE", "Configuration file (default /etc/lector/mqtt.conf when present).",
              example: "/etc/lector/other.conf", .optional(\.configPath, .text)),
        Entry("--log-level", "General", "L", Logger.Level.allCases.map(\.name).joined(separator: "|") + " (default info).",
              example: "debug", .optional(\.settings.logLevel, .logLevel)),
        Entry("--help", aliases: ["-h"], inFile: false, "General", nil, "Show this help.", .value(\.showHelp, .bool)),
        Entry("--version", inFile: false, "General", nil, "Show the version.", .value(\.showVersion, .bool)),
    ]

    /// lector-mqtt's section of docs/configuration.md when `arguments` are
    /// `--options-markdown` alone (``OptionReference``), else nil.
    public static func reference(askedBy arguments: [String]) -> String? {
        OptionReference.isAsked(by: arguments) ? table.reference() : nil
    }

    /// The table: lookups, `--help`, Markdown, the command line and the file.
    public static let table = OptionTable(
        program: "lector-mqtt", options: options,
        layout: HelpLayout(header: ["Usage: lector-mqtt --socket PATH --broker mqtt://HOST:PORT [options]", "",
                                    "Publishes what lectord reads, per camera, to an MQTT broker, with Home Assistant discovery."],
                           helpColumn: 29, groupOrder: ["lectord", "Broker", "Topics", "General"]),
        defaultConfigPath: "/etc/lector/mqtt.conf",
        refusedFlags: ["--password": "--password would show the password to every user (ps); use --password-file FILE"],
        refusedKeys: ["password": "write the password into a file of its own and name it with password_file"])

    /// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`.
    private static let broker = ValueParser<BrokerAddress> { (text: String) throws(OptionValueError) -> BrokerAddress in
        guard let address = BrokerAddress(url: text) else {
            throw OptionValueError("must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT], not '\(text)'")
        }
        return address
    }

    /// Any text up to MQTT's 65535 bytes.
    private static let clientID = ValueParser<String> { (text: String) throws(OptionValueError) -> String in
        guard !text.isEmpty, text.utf8.count <= 65535 else { throw OptionValueError("needs a value") }
        return text
    }

    /// One or more topic levels without wildcards.
    private static let topic = ValueParser<String> { (text: String) throws(OptionValueError) -> String in
        guard BridgeSettings.validTopicPart(text) else {
            throw OptionValueError("must be topic levels without +, # or a leading/trailing /, not '\(text)'")
        }
        return text
    }

    private static let statusInterval = ValueParser<Double> { (text: String) throws(OptionValueError) -> Double in
        guard let seconds = Double(text), (0.1...86400).contains(seconds) else {
            throw OptionValueError("must be a number of seconds from 0.1 to 86400, not '\(text)'")
        }
        return seconds
    }
}
