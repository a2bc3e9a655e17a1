import Foundation
import LectorSystem

/// lector-mqtt's configuration file (`--config FILE`, default /etc/lector/mqtt.conf):
///
/// ```
/// # comment
/// broker = mqtts://broker.lan:8883
/// username = lector
/// password_file = /etc/lector/mqtt.password
/// ca_file = /etc/lector/mqtt-ca.pem
/// ```
///
/// `key = value` lines (`-` and `_` alike in keys); a `#` at the start or after a space
/// starts a comment. The keys are the long flags' names with `_` (see ``BridgeOptions``).
public enum BridgeConfigFile {
    /// The default file, read when it exists and `--config` is not given.
    public static let defaultPath = "/etc/lector/mqtt.conf"

    /// Reads and parses `path`.
    public static func load(path: String) throws(ConfigError) -> BridgeSettings {
        try parse(ConfigText.read(path), path: path)
    }

    /// Parses the text of a configuration file.
    public static func parse(_ text: String, path: String) throws(ConfigError) -> BridgeSettings {
        var settings = BridgeSettings()
        var seen: [String: Int] = [:]
        for (number, line) in try ConfigText.lines(text, path: path) {
            guard case let .setting(key, value) = line else {
                throw ConfigError(path: path, line: number, key: nil, message: "mqtt.conf has no sections; write key = value lines")
            }
            if key == "password" {
                throw ConfigError(path: path, line: number, key: key,
                                  message: "write the password into a file of its own and name it with password_file")
            }
            if let earlier = seen[key] {
                throw ConfigError(path: path, line: number, key: key, message: "given twice (first on line \(earlier))")
            }
            seen[key] = number
            do {
                try SettingSyntax.set(key, value, into: &settings)
            } catch {
                throw ConfigError(path: path, line: number, key: key, message: error.message)
            }
        }
        return settings
    }
}
