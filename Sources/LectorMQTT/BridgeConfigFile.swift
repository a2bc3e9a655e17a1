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
/// starts a comment. The keys are the long flags' names with `_` (see ``BridgeOptionTable``).
public enum BridgeConfigFile {
    /// The default file, read when it exists and `--config` is not given.
    public static var defaultPath: String { BridgeOptionTable.table.defaultConfigPath ?? "/etc/lector/mqtt.conf" }

    /// Reads and parses `path`.
    public static func load(path: String) throws(ConfigError) -> BridgeSettings {
        try parse(ConfigText.read(path), path: path)
    }

    /// Parses the text of a configuration file.
    public static func parse(_ text: String, path: String) throws(ConfigError) -> BridgeSettings {
        var options = BridgeOptions()
        _ = try BridgeOptionTable.table.parseFile(text, path: path, into: &options)
        return options.settings
    }
}
