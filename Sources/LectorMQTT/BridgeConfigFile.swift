import Foundation
import LectorSystem

/// A mistake in mqtt.conf: `file:line: key: message`, as lectord's ``Lector/ConfigError``.
public struct BridgeConfigError: Error, Equatable, CustomStringConvertible {
    public let path: String
    public let line: Int
    public let key: String?
    public let message: String

    public var description: String {
        if let key { return "\(path):\(line): \(key): \(message)" }
        return line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)"
    }
}

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
    public static func load(path: String) throws(BridgeConfigError) -> BridgeSettings {
        // A regular file only, read without blocking (a FIFO named as the config would
        // hang the start); one reader for lectord's and the bridges' files.
        let contents: String?
        do {
            contents = try RegularFile.readText(path)
        } catch {
            throw BridgeConfigError(path: path, line: 0, key: nil, message: "cannot read the file: \(error.reason)")
        }
        guard let text = contents else {
            throw BridgeConfigError(path: path, line: 0, key: nil, message: "not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// Parses the text of a configuration file.
    public static func parse(_ text: String, path: String) throws(BridgeConfigError) -> BridgeSettings {
        var settings = BridgeSettings()
        var seen: [String: Int] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = Substring(rawLine)
            if line.first == "#" || line.first == ";" { continue }
            if let comment = line.range(of: " #") ?? line.range(of: "\t#") { line = line[..<comment.lowerBound] }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            if trimmed.hasPrefix("[") {
                throw BridgeConfigError(path: path, line: number, key: nil, message: "mqtt.conf has no sections; write key = value lines")
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw BridgeConfigError(path: path, line: number, key: nil, message: "expected 'key = value'")
            }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "-", with: "_")
            let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if key == "password" {
                throw BridgeConfigError(path: path, line: number, key: key,
                                        message: "write the password into a file of its own and name it with password_file")
            }
            if let earlier = seen[key] {
                throw BridgeConfigError(path: path, line: number, key: key, message: "given twice (first on line \(earlier))")
            }
            seen[key] = number
            do {
                try SettingSyntax.set(key, value, into: &settings)
            } catch {
                throw BridgeConfigError(path: path, line: number, key: key, message: error.message)
            }
        }
        return settings
    }
}
