import Foundation
import LectorProtocol
import LectorSystem

/// lectord's configuration file (`--config FILE`, default /etc/lector/lectord.conf):
///
/// ```
/// # comment
/// socket = /run/lector/lector.sock     # daemon keys come first, or under [daemon]
/// socket_group = video
/// [camera]                             # one section per camera; a name may follow
/// device = /dev/video0                 # or: replay = PATH, or: demo = true
/// format = MJPG
/// size = 1280x720
/// ```
///
/// Keys are `name = value`; values run to the end of the line (a `#` after a space
/// starts a comment). The keys are those of ``DaemonOptionTable``. Command-line flags
/// override what the file says.
public struct ConfigFile: Equatable, Sendable {
    /// One `[camera]` section.
    public struct Section: Equatable, Sendable {
        /// The line of its header.
        public var line: Int
        public var settings = CameraSettings()
        /// The options it gives, by flag.
        public var given: Set<String> = []
        /// The key that named its source.
        var sourceKey: String?
    }

    public var path: String
    /// The daemon settings: the file's values where ``givenKeys`` names them, defaults elsewhere.
    public var daemon = DaemonOptions()
    /// The daemon keys the file gives.
    public var givenKeys: Set<String> = []
    public var sections: [Section] = []

    /// The default file, used when it exists and `--config` is not given.
    public static let defaultPath = "/etc/lector/lectord.conf"

    public static var daemonKeys: [String] { DaemonOptionTable.keys(.daemon) }
    public static var cameraKeys: [String] { DaemonOptionTable.keys(.camera) }

    /// The cameras of the file, one per section.
    public var cameras: [CameraSpec] { sections.flatMap { $0.settings.cameras() } }

    /// The value of daemon key `key` when the file gives it.
    private func given<Value>(_ key: String, _ value: Value) -> Value? { givenKeys.contains(key) ? value : nil }
    public var socketPath: String? { given("socket", daemon.socketPath) ?? nil }
    public var socketGroup: String? { given("socket_group", daemon.socketGroup) ?? nil }
    public var alwaysOn: Bool? { given("always_on", daemon.alwaysOn) }
    public var maximumClients: Int? { given("max_clients", daemon.server.maximumClients) }
    public var clientTimeout: Double? { given("client_timeout", daemon.server.clientTimeout) }
    public var idleTimeout: Double? { given("idle_timeout", daemon.server.idleTimeout) }
    public var clientBufferBytes: Int? { given("client_buffer", daemon.server.clientBufferBytes) }
    public var logLevel: Logger.Level? { given("log_level", daemon.logLevel) }

    /// Reads and parses `path`.
    public static func load(path: String) throws(ConfigError) -> ConfigFile {
        try parse(ConfigText.read(path), path: path)
    }

    /// Parses the text of a configuration file.
    public static func parse(_ text: String, path: String) throws(ConfigError) -> ConfigFile {
        var config = ConfigFile(path: path)
        var section: Section?
        var zoneSection: ZoneSection?
        var ruleSection: RuleSection?
        var zones: [ZoneSection] = []
        var rules: [RuleSection] = []
        var unusedCamera = CameraSettings()

        func finishText() throws(ConfigError) {
            if let done = zoneSection {
                zoneSection = nil
                guard done.rectGiven else {
                    throw ConfigError(path: path, line: done.line, key: "rect", message: "a zone needs rect = X,Y,W,H")
                }
                if let other = zones.first(where: { $0.camera == done.camera && $0.zone.name == done.zone.name }) {
                    throw ConfigError(path: path, line: done.line, key: nil,
                                      message: "zone \(done.camera)/\(done.zone.name) is already defined at line \(other.line)")
                }
                zones.append(done)
            }
            if let done = ruleSection {
                ruleSection = nil
                guard done.matchGiven else {
                    throw ConfigError(path: path, line: done.line, key: "match", message: "a rule needs match = REGEX")
                }
                if let other = rules.first(where: { $0.camera == done.camera && $0.rule.zone == done.rule.zone && $0.rule.name == done.rule.name }) {
                    throw ConfigError(path: path, line: done.line, key: nil,
                                      message: "rule \(done.camera)/\(done.rule.qualifiedName) is already defined at line \(other.line)")
                }
                rules.append(done)
            }
        }

        func finish() throws(ConfigError) {
            guard let done = section else { return }
            section = nil
            guard !done.settings.sources.isEmpty else {
                throw ConfigError(path: path, line: done.line, key: nil, message: "[camera] needs device = PATH, replay = PATH or demo = true")
            }
            if done.settings.pendingLabel != nil {
                throw ConfigError(path: path, line: done.line, key: "name", message: "a camera has one name")
            }
            if let (option, message) = DaemonOptionTable.violation(given: done.given, name: { $0.key ?? $0.flag }) {
                throw ConfigError(path: path, line: done.line, key: option.key, message: message)
            }
            config.sections.append(done)
        }

        for (number, line) in try ConfigText.lines(text, path: path) {
            let key: String, value: String
            switch line {
            case let .setting(name, text):
                (key, value) = (name, text)
            case let .section(name):
                try finish()
                try finishText()
                if name.hasPrefix("zone ") || name.hasPrefix("rule ") {
                    let rest = name.dropFirst(5).trimmingCharacters(in: .whitespaces)
                    do {
                        if name.hasPrefix("zone ") { zoneSection = try ZoneSection(line: number, name: rest) } else {
                            ruleSection = try RuleSection(line: number, name: rest)
                        }
                    } catch {
                        throw ConfigError(path: path, line: number, key: nil, message: error.message)
                    }
                } else if name == "camera" || name.hasPrefix("camera ") {
                    var made = Section(line: number)
                    let label = name.dropFirst("camera".count).trimmingCharacters(in: .whitespaces)
                    if !label.isEmpty {
                        do { made.settings.pendingLabel = try CameraName.parse(label) } catch {
                            throw ConfigError(path: path, line: number, key: nil, message: "camera name \(error.message)")
                        }
                    }
                    section = made
                } else if name != "daemon" {
                    throw ConfigError(path: path, line: number, key: nil,
                                      message: "unknown section [\(name)]; sections are [daemon], [camera NAME], [zone CAMERA/ZONE] and [rule CAMERA/ZONE/NAME]")
                }
                continue
            }
            func fail(_ message: String) -> ConfigError { ConfigError(path: path, line: number, key: key, message: message) }

            if zoneSection != nil || ruleSection != nil {
                do {
                    if zoneSection != nil { try zoneSection?.set(key, value) } else { try ruleSection?.set(key, value) }
                } catch {
                    throw fail(error.message)
                }
                continue
            }
            let option = DaemonOptionTable.option(key: key)
            if var camera = section {
                guard let option, option.scope == .camera else {
                    throw fail("unknown camera key" + (option?.scope == .daemon ? " (a daemon key: put it before the first [camera])"
                                                                                : "; known: \(cameraKeys.joined(separator: ", "))"))
                }
                if option.isSource, let sourceKey = camera.sourceKey {
                    throw fail("a camera has one source; this one already has '\(sourceKey)'")
                }
                do { try option.set(value, daemon: &config.daemon, camera: &camera.settings) } catch { throw fail(error.message) }
                if option.isSource { camera.sourceKey = key }
                camera.given.insert(option.flag)
                section = camera
            } else {
                guard let option, option.scope == .daemon else {
                    throw fail("unknown daemon key" + (option?.scope == .camera ? " (a camera key: put it under [camera])"
                                                                                : "; known: \(daemonKeys.joined(separator: ", "))"))
                }
                do { try option.set(value, daemon: &config.daemon, camera: &unusedCamera) } catch { throw fail(error.message) }
                config.givenKeys.insert(key)
            }
        }
        try finish()
        try finishText()
        try config.attach(zones: zones, rules: rules)
        return config
    }

    /// Gives each named camera its zones and rules; a zone or rule of a camera the file
    /// does not name, or a rule of a zone it does not define, is an error at its line.
    private mutating func attach(zones: [ZoneSection], rules: [RuleSection]) throws(ConfigError) {
        func index(of camera: String, line: Int) throws(ConfigError) -> Int {
            guard let index = sections.firstIndex(where: { $0.settings.labels.first == camera }) else {
                let named = sections.compactMap { $0.settings.labels.first ?? nil }
                throw ConfigError(path: path, line: line, key: nil,
                                  message: "no [camera \(camera)] in this file" + (named.isEmpty ? "" : "; cameras: \(named.joined(separator: ", "))"))
            }
            return index
        }
        for zone in zones {
            let camera = try index(of: zone.camera, line: zone.line)
            if sections[camera].settings.spec.recognizer.zones.contains(where: { $0.name == zone.zone.name }) {
                throw ConfigError(path: path, line: zone.line, key: nil, message: "zone \(zone.camera)/\(zone.zone.name) is already given by a zone key")
            }
            sections[camera].settings.spec.recognizer.zones.append(zone.zone)
        }
        for rule in rules {
            let camera = try index(of: rule.camera, line: rule.line)
            if let zone = rule.rule.zone, !sections[camera].settings.spec.recognizer.zones.contains(where: { $0.name == zone }) {
                throw ConfigError(path: path, line: rule.line, key: nil, message: "no [zone \(rule.camera)/\(zone)] in this file")
            }
            sections[camera].settings.spec.rules.append(rule.rule)
        }
    }
}
