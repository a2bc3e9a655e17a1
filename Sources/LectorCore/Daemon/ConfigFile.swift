import Foundation
import LectorProtocol
import LectorSystem

/// A mistake in the configuration file: names the file, the line and the key.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public let path: String
    public let line: Int
    public let key: String?
    public let message: String

    public var description: String {
        if let key { return "\(path):\(line): \(key): \(message)" }
        return line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)"
    }
}

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
/// starts a comment). Command-line flags override what the file says.
public struct ConfigFile: Equatable, Sendable {
    public var path: String
    public var socketPath: String?
    public var socketGroup: String?
    public var alwaysOn: Bool?
    public var maximumClients: Int?
    public var clientTimeout: Double?
    public var clientBufferBytes: Int?
    public var logLevel: Logger.Level?
    public var cameras: [CameraSpec] = []

    /// The default file, used when it exists and `--config` is not given.
    public static let defaultPath = "/etc/lector/lectord.conf"

    public static let daemonKeys = ["socket", "socket_group", "always_on", "max_clients", "client_timeout", "client_buffer", "log_level"]
    public static let cameraKeys = ["device", "replay", "demo", "loop", "format", "size", "fps", "io", "device_orientation",
                                    "camera_position", "rotation", "mirror", "lang", "psm", "roi", "downscale", "deadline_ms",
                                    "symbols", "tessdata"]

    /// Reads and parses `path`.
    public static func load(path: String) throws(ConfigError) -> ConfigFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(path: path, line: 0, key: nil, message: "cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(path: path, line: 0, key: nil, message: "not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// Parses the text of a configuration file.
    public static func parse(_ text: String, path: String) throws(ConfigError) -> ConfigFile {
        var config = ConfigFile(path: path)
        var section: Section = .daemon
        var camera: CameraDraft?

        func finish() throws(ConfigError) {
            if let draft = camera { config.cameras.append(try draft.spec(path: path)) }
            camera = nil
        }

        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = Substring(rawLine)
            if line.first == "#" || line.first == ";" { continue }
            if let comment = line.range(of: " #") ?? line.range(of: "\t#") { line = line[..<comment.lowerBound] }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]") else {
                    throw ConfigError(path: path, line: number, key: nil, message: "a section header must end with ]")
                }
                let name = trimmed.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                try finish()
                if name == "daemon" {
                    section = .daemon
                } else if name == "camera" || name.hasPrefix("camera ") {
                    section = .camera
                    camera = CameraDraft(line: number)
                } else {
                    throw ConfigError(path: path, line: number, key: nil,
                                      message: "unknown section [\(name)]; sections are [daemon] and [camera NAME]")
                }
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw ConfigError(path: path, line: number, key: nil, message: "expected 'key = value'")
            }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "-", with: "_")
            let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            let reader = ValueReader(path: path, line: number, key: key, value: value)
            switch section {
            case .daemon: try config.set(key, reader)
            case .camera:
                guard var draft = camera else { continue }
                try draft.set(key, reader)
                camera = draft
            }
        }
        try finish()
        return config
    }

    private enum Section { case daemon, camera }

    private mutating func set(_ key: String, _ reader: ValueReader) throws(ConfigError) {
        switch key {
        case "socket": socketPath = try reader.string()
        case "socket_group": socketGroup = try reader.string()
        case "always_on": alwaysOn = try reader.bool()
        case "max_clients": maximumClients = try reader.integer(in: 1...4096)
        case "client_timeout": clientTimeout = try reader.number(in: 0.1...86400)
        case "client_buffer": clientBufferBytes = try reader.integer(in: 4096...(1 << 30))
        case "log_level":
            logLevel = try reader.choice(Logger.Level.init(name:), Logger.Level.allCases.map(\.name))
        default:
            let hint = Self.cameraKeys.contains(key) ? " (a camera key: put it under [camera])" : "; known: \(Self.daemonKeys.joined(separator: ", "))"
            throw reader.fail("unknown daemon key\(hint)")
        }
    }
}

/// Typed values, with errors naming file, line and key.
private struct ValueReader {
    let path: String
    let line: Int
    let key: String
    let value: String

    func fail(_ message: String) -> ConfigError { ConfigError(path: path, line: line, key: key, message: message) }

    func string() throws(ConfigError) -> String {
        guard !value.isEmpty else { throw fail("needs a value") }
        return value
    }

    func bool() throws(ConfigError) -> Bool {
        switch value.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw fail("must be true or false, not '\(value)'")
        }
    }

    func integer(in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw fail("must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
        }
        return number
    }

    func number(in range: ClosedRange<Double>) throws(ConfigError) -> Double {
        guard let number = Double(value), range.contains(number) else {
            throw fail("must be a number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
        }
        return number
    }

    func choice<T>(_ parse: (String) -> T?, _ choices: [String]) throws(ConfigError) -> T {
        guard let parsed = parse(value) else { throw fail("must be one of \(choices.joined(separator: "|")), not '\(value)'") }
        return parsed
    }
}

/// A [camera] section being read.
private struct CameraDraft {
    let line: Int
    var source: SourceSpec?
    var sourceKey: String?
    var spec = CameraSpec(source: .demo)
    var loop = false

    mutating func set(_ key: String, _ reader: ValueReader) throws(ConfigError) {
        switch key {
        case "device", "replay", "demo":
            if let sourceKey { throw reader.fail("a camera has one source; this one already has '\(sourceKey)'") }
            sourceKey = key
            switch key {
            case "device": source = .device(path: try reader.string())
            case "replay": source = .replay(ReplayOptions(path: try reader.string()))
            default:
                guard try reader.bool() else { throw reader.fail("demo = true is the only meaningful value") }
                source = .demo
            }
        case "loop": loop = try reader.bool()
        case "format":
            spec.capture.format = try reader.choice(PixelFormat.init(name:), PixelFormat.allCases.map(\.fourcc))
        case "size": spec.capture.size = try reader.choice({ ValueSyntax.size($0, maximumSide: LumaExtractor.maximumSide) }, ["WxH"])
        case "fps": spec.capture.fps = try reader.number(in: 0.01...1000)
        case "io": spec.capture.io = try reader.choice({ ["auto", "direct", "libv4l2"].contains($0) ? $0 : nil }, ["auto", "direct", "libv4l2"])
        case "device_orientation":
            spec.orientation.deviceOrientation = try reader.choice(DeviceOrientation.init(rawValue:), DeviceOrientation.allCases.map(\.rawValue))
        case "camera_position":
            spec.orientation.cameraPosition = try reader.choice(CameraPosition.init(rawValue:), CameraPosition.allCases.map(\.rawValue))
        case "rotation": spec.orientation.rotation = try reader.choice(ValueSyntax.rotation, ["0", "90", "180", "270"])
        case "mirror": spec.orientation.mirror = try reader.bool()
        case "lang":
            let language = try reader.string()
            guard language.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "_" }) else {
                throw reader.fail("must look like eng or eng+deu, not '\(language)'")
            }
            spec.recognizer.language = language
        case "psm": spec.recognizer.pageSegmentation = try reader.integer(in: 0...13)
        case "roi": spec.recognizer.regionOfInterest = try reader.choice(ValueSyntax.box, ["X,Y,W,H"])
        case "downscale": spec.recognizer.downscale = try reader.choice(Downscale.init, ["auto", "1", "2"])
        case "deadline_ms": spec.recognizer.deadlineMilliseconds = try reader.integer(in: 10...600_000)
        case "symbols": spec.recognizer.symbols = try reader.bool()
        case "tessdata": spec.recognizer.dataPath = try reader.string()
        default:
            let hint = ConfigFile.daemonKeys.contains(key) ? " (a daemon key: put it before the first [camera])"
                                                           : "; known: \(ConfigFile.cameraKeys.joined(separator: ", "))"
            throw reader.fail("unknown camera key\(hint)")
        }
    }

    func spec(path: String) throws(ConfigError) -> CameraSpec {
        guard let source else {
            throw ConfigError(path: path, line: line, key: nil, message: "[camera] needs device = PATH, replay = PATH or demo = true")
        }
        if (spec.orientation.rotation != nil || spec.orientation.mirror != nil) && spec.orientation.deviceOrientation != nil {
            throw ConfigError(path: path, line: line, key: "rotation", message: "give either rotation/mirror or device_orientation, not both")
        }
        return spec.with(source: source, loop: loop)
    }
}
