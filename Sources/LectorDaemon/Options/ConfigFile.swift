import Foundation
import LectorOptions
import LectorProtocol
import LectorSystem

/// lectord's configuration file (`--config FILE`, default /etc/lector/lectord.conf):
///
/// ```
/// # comment
/// socket = /run/lector/lector.sock     # daemon keys come first, or under [daemon]
/// socket_group = video
/// [camera]                             # one section per camera; a name may follow
/// device = /dev/video0                 # or: url = URL, replay = PATH, demo = true
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
        var reader = Reader(path: path)
        for (number, line) in try ConfigText.lines(text, path: path) {
            switch line {
            case let .section(name): try reader.start(section: name, line: number)
            case let .setting(key, value): try reader.set(key, value, line: number)
            }
        }
        return try reader.finished()
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

extension ConfigFile {
    /// Reads a configuration file line by line: the section open now (a camera, a zone or
    /// a rule), each checked when the next one starts, and what the file said so far.
    private struct Reader {
        var config: ConfigFile
        var section: Section?
        var zoneSection: ZoneSection?
        var ruleSection: RuleSection?
        var zones: [ZoneSection] = []
        var rules: [RuleSection] = []
        /// Where a daemon key's setter puts camera values (it sets none).
        var unusedCamera = CameraSettings()

        init(path: String) { config = ConfigFile(path: path) }

        private func error(_ line: Int, _ key: String?, _ message: String) -> ConfigError {
            ConfigError(path: config.path, line: line, key: key, message: message)
        }

        /// `[daemon]`, `[camera NAME]`, `[zone CAMERA/ZONE]` or `[rule CAMERA/ZONE/NAME]`
        /// at `line`: the open section ends.
        mutating func start(section name: String, line: Int) throws(ConfigError) {
            try finishCamera()
            try finishZoneOrRule()
            if name.hasPrefix("zone ") || name.hasPrefix("rule ") {
                let rest = name.dropFirst(5).trimmingCharacters(in: .whitespaces)
                do {
                    if name.hasPrefix("zone ") { zoneSection = try ZoneSection(line: line, name: rest) } else {
                        ruleSection = try RuleSection(line: line, name: rest)
                    }
                } catch {
                    throw self.error(line, nil, error.message)
                }
            } else if name == "camera" || name.hasPrefix("camera ") {
                var made = Section(line: line)
                let label = name.dropFirst("camera".count).trimmingCharacters(in: .whitespaces)
                if !label.isEmpty {
                    do { made.settings.pendingLabel = try CameraName.parse(label) } catch {
                        throw self.error(line, nil, "camera name \(error.message)")
                    }
                }
                section = made
            } else if name != "daemon" {
                throw error(line, nil, "unknown section [\(name)]; sections are [daemon], [camera NAME], [zone CAMERA/ZONE] and [rule CAMERA/ZONE/NAME]")
            }
        }

        /// `key = value` at `line`, for the open section (or the daemon before any).
        mutating func set(_ key: String, _ value: String, line: Int) throws(ConfigError) {
            if zoneSection != nil || ruleSection != nil {
                do {
                    if zoneSection != nil { try zoneSection?.set(key, value) } else { try ruleSection?.set(key, value) }
                } catch {
                    throw self.error(line, key, error.message)
                }
            } else if section != nil {
                try setCamera(key, value, line: line)
            } else {
                try setDaemon(key, value, line: line)
            }
        }

        private mutating func setCamera(_ key: String, _ value: String, line: Int) throws(ConfigError) {
            guard var camera = section else { return }
            let option = DaemonOptionTable.option(key: key)
            guard let option, option.scope == .camera else {
                throw error(line, key, "unknown camera key" + (option?.scope == .daemon ? " (a daemon key: put it before the first [camera])"
                                                                                          : "; known: \(cameraKeys.joined(separator: ", "))"))
            }
            if option.isSource, let sourceKey = camera.sourceKey {
                throw error(line, key, "a camera has one source; this one already has '\(sourceKey)'")
            }
            do { try option.set(value, daemon: &config.daemon, camera: &camera.settings) } catch { throw self.error(line, key, error.message) }
            if option.isSource { camera.sourceKey = key }
            camera.given.insert(option.flag)
            section = camera
        }

        private mutating func setDaemon(_ key: String, _ value: String, line: Int) throws(ConfigError) {
            let option = DaemonOptionTable.option(key: key)
            guard let option, option.scope == .daemon else {
                throw error(line, key, "unknown daemon key" + (option?.scope == .camera ? " (a camera key: put it under [camera])"
                                                                                          : "; known: \(daemonKeys.joined(separator: ", "))"))
            }
            do { try option.set(value, daemon: &config.daemon, camera: &unusedCamera) } catch { throw self.error(line, key, error.message) }
            config.givenKeys.insert(key)
        }

        /// Checks the camera section that ends and keeps it.
        private mutating func finishCamera() throws(ConfigError) {
            guard let done = section else { return }
            section = nil
            guard !done.settings.sources.isEmpty else {
                throw error(done.line, nil, "[camera] needs device = PATH, url = URL, replay = PATH or demo = true")
            }
            if done.settings.pendingLabel != nil { throw error(done.line, "name", "a camera has one name") }
            if let (option, message) = DaemonOptionTable.violation(given: done.given, name: { $0.key ?? $0.flag }) {
                throw error(done.line, option.key, message)
            }
            config.sections.append(done)
        }

        /// Checks the zone or rule section that ends and keeps it.
        private mutating func finishZoneOrRule() throws(ConfigError) {
            if let done = zoneSection {
                zoneSection = nil
                guard done.rectGiven else { throw error(done.line, "rect", "a zone needs rect = X,Y,W,H") }
                if let other = zones.first(where: { $0.camera == done.camera && $0.zone.name == done.zone.name }) {
                    throw error(done.line, nil, "zone \(done.camera)/\(done.zone.name) is already defined at line \(other.line)")
                }
                zones.append(done)
            }
            if let done = ruleSection {
                ruleSection = nil
                guard done.matchGiven else { throw error(done.line, "match", "a rule needs match = REGEX") }
                if let decimals = done.rule.display.decimals, let digits = done.rule.display.digits, decimals >= digits {
                    throw error(done.line, "decimals", "a display of \(digits) digits has fewer than \(decimals + 1): decimals must be less than digits")
                }
                if let other = rules.first(where: { $0.camera == done.camera && $0.rule.zone == done.rule.zone && $0.rule.name == done.rule.name }) {
                    throw error(done.line, nil, "rule \(done.camera)/\(done.rule.qualifiedName) is already defined at line \(other.line)")
                }
                rules.append(done)
            }
        }

        /// The file read to its end: the last section checked, zones and rules attached.
        mutating func finished() throws(ConfigError) -> ConfigFile {
            try finishCamera()
            try finishZoneOrRule()
            try config.attach(zones: zones, rules: rules)
            return config
        }
    }
}
