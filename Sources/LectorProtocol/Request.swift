/// Protocol version: a new major breaks clients, a new minor only adds.
public enum ProtocolVersion {
    public static let major = 1
    public static let minor = 15
    /// Longest request line accepted, newline included. gpsd's limit.
    public static let maximumRequestLine = 10_240
    /// Longest line the server sends, newline included (TEXT at symbol level, SNAPSHOT).
    public static let maximumServerLine = 16 * 1024 * 1024
}

/// A client's subscription: what it wants streamed. Fields a WATCH leaves out keep
/// their previous values (gpsd's rule).
public struct WatchSettings: Equatable, Sendable {
    public var enable = false
    /// nil: every device.
    public var devices: [String]?
    public var text = true
    public var frame = true
    public var level = DetailLevel.word
    public var minimumConfidence = 0.0
    public var changesOnly = false
    /// Send TRACK messages (line tracks settling, changing, going).
    public var tracks = false
    /// Send MATCH messages (rules matching text; proto_minor 5).
    public var matches = false
    /// Send CODE messages (QR codes and barcodes coming into view; proto_minor 14).
    public var codes = false

    public init() {}

    /// Whether this subscription streams anything of `device`.
    public func streams(_ device: String) -> Bool {
        streamsAnything && (devices?.contains(device) ?? true)
    }

    /// Whether it asks for any message at all: a WATCH with `text`, `frame`, `tracks`
    /// and `matches` all false receives nothing and holds its client slot like a client
    /// that sends nothing (the idle timeout applies to it).
    public var streamsAnything: Bool { enable && (text || frame || tracks || matches || codes) }
}

/// A WATCH request: only the fields the client gave.
public struct WatchRequest: Equatable, Sendable {
    public var enable: Bool?
    public var devices: [String]?
    public var text: Bool?
    public var frame: Bool?
    public var level: DetailLevel?
    public var minimumConfidence: Double?
    public var changesOnly: Bool?
    public var tracks: Bool?
    public var matches: Bool?
    public var codes: Bool?

    public init() {}

    /// `settings` with this request's fields applied.
    public func applied(to settings: WatchSettings) -> WatchSettings {
        var settings = settings
        settings.enable = enable ?? true
        if let devices { settings.devices = devices.isEmpty || devices == ["all"] ? nil : devices }
        if let text { settings.text = text }
        if let frame { settings.frame = frame }
        if let level { settings.level = level }
        if let minimumConfidence { settings.minimumConfidence = minimumConfidence }
        if let changesOnly { settings.changesOnly = changesOnly }
        if let tracks { settings.tracks = tracks }
        if let matches { settings.matches = matches }
        if let codes { settings.codes = codes }
        return settings
    }
}

/// One parsed request line.
public enum Request: Equatable, Sendable {
    case watch(WatchRequest)
    case poll
    case devices
    /// Orientation change for `device` (nil: the only device).
    case orientation(device: String?, OrientationSettings)
    /// `color` (proto_minor 2): the captured frame in the camera's colour, when lectord
    /// keeps it (see SNAPSHOT); else the upright gray frame.
    case snapshot(device: String?, boxes: Bool, maximumWidth: Int?, color: Bool = false)
    case status
    /// The MATCHes kept in lectord's history (proto_minor 11).
    case history(HistoryQuery)

    /// The request classes, as written on the wire.
    public static let classes = ["WATCH", "POLL", "DEVICES", "ORIENTATION", "SNAPSHOT", "STATUS", "HISTORY"]
}

/// Why a request line is refused: the content of an ERROR reply.
public struct RequestError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    /// The class of the refused request, when it had a known one.
    public let requestClass: String?

    public init(_ message: String, requestClass: String? = nil) {
        self.message = message
        self.requestClass = requestClass
    }

    public var description: String { message }
}

extension Request {
    /// Parses one request line (without its newline): a JSON object whose `class` is a
    /// request class. Unknown members are ignored; known ones must have the right type.
    public static func parse(_ line: some Collection<UInt8>) throws(RequestError) -> Request {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw RequestError(error == .invalidUTF8 ? "request is not valid UTF-8" : "request is not valid JSON: \(error)")
        }
        guard case .object = value else { throw RequestError("request must be a JSON object") }
        guard let name = value["class"]?.stringValue else { throw RequestError("request has no \"class\" string") }
        let fields = Fields(value: value, requestClass: name)
        switch name {
        case "WATCH":
            var watch = WatchRequest()
            watch.enable = try fields.bool("enable")
            watch.devices = try fields.strings("devices")
            if watch.devices?.isEmpty == true {
                throw RequestError("WATCH: \"devices\" is empty; leave it out or give [\"all\"] to watch every device",
                                   requestClass: "WATCH")
            }
            watch.text = try fields.bool("text")
            watch.frame = try fields.bool("frame")
            watch.level = try fields.choice("level", DetailLevel.init(rawValue:), DetailLevel.allCases.map(\.rawValue))
            watch.minimumConfidence = try fields.number("min_confidence", in: 0...1)
            watch.changesOnly = try fields.bool("changes_only")
            watch.tracks = try fields.bool("tracks")
            watch.matches = try fields.bool("matches")
            watch.codes = try fields.bool("codes")
            return .watch(watch)
        case "POLL": return .poll
        case "DEVICES": return .devices
        case "STATUS": return .status
        case "ORIENTATION":
            var settings = OrientationSettings()
            settings.deviceOrientation = try fields.choice("device_orientation", DeviceOrientation.init(rawValue:),
                                                           DeviceOrientation.allCases.map(\.rawValue))
            settings.cameraPosition = try fields.choice("camera_position", CameraPosition.init(rawValue:),
                                                        CameraPosition.allCases.map(\.rawValue))
            if fields.value["rotation"]?.stringValue == "auto" {
                settings.automaticRotation = true  // proto_minor 6: found from the text
            } else if let rotation = try fields.number("rotation", in: 0...270) {
                guard [0.0, 90, 180, 270].contains(rotation) else {
                    throw RequestError("ORIENTATION: rotation must be 0, 90, 180 or 270", requestClass: name)
                }
                settings.rotation = Int(rotation)
            }
            settings.mirror = try fields.bool("mirror")
            if settings == OrientationSettings() {
                throw RequestError("ORIENTATION: give device_orientation, camera_position, rotation or mirror", requestClass: name)
            }
            if (settings.rotation != nil || settings.mirror != nil || settings.automaticRotation != nil) && settings.deviceOrientation != nil {
                throw RequestError("ORIENTATION: give either rotation/mirror or device_orientation, not both", requestClass: name)
            }
            return .orientation(device: try fields.string("device"), settings)
        case "SNAPSHOT":
            let maximumWidth = try fields.number("max_width", in: 16...16384).map { Int($0) }
            return .snapshot(device: try fields.string("device"), boxes: try fields.bool("boxes") ?? false,
                             maximumWidth: maximumWidth, color: try fields.bool("color") ?? false)
        case "HISTORY":
            let limit = try fields.number("limit", in: 1...Double(HistoryQuery.maximumLimit)).map { Int($0) }
            return .history(HistoryQuery(device: try fields.string("device"), rule: try fields.string("rule"),
                                         since: try fields.string("since"), limit: limit ?? HistoryQuery.defaultLimit))
        default:
            throw RequestError("unknown request class \"\(name)\"; known: \(classes.joined(separator: ", "))", requestClass: name)
        }
    }
}

/// Typed access to a request's members, with errors that name the member.
private struct Fields {
    let value: JSONValue
    let requestClass: String

    private func fail(_ key: String, _ expected: String) -> RequestError {
        RequestError("\(requestClass): \(key) must be \(expected)", requestClass: requestClass)
    }

    func bool(_ key: String) throws(RequestError) -> Bool? {
        guard let member = value[key] else { return nil }
        guard let flag = member.boolValue else { throw fail(key, "true or false") }
        return flag
    }

    func string(_ key: String) throws(RequestError) -> String? {
        guard let member = value[key] else { return nil }
        guard let text = member.stringValue, !text.isEmpty else { throw fail(key, "a non-empty string") }
        return text
    }

    func strings(_ key: String) throws(RequestError) -> [String]? {
        guard let member = value[key] else { return nil }
        if let single = member.stringValue { return [single] }
        guard let items = member.arrayValue else { throw fail(key, "an array of strings") }
        var texts: [String] = []
        for item in items {
            guard let text = item.stringValue else { throw fail(key, "an array of strings") }
            texts.append(text)
        }
        return texts
    }

    func number(_ key: String, in range: ClosedRange<Double>) throws(RequestError) -> Double? {
        guard let member = value[key] else { return nil }
        guard let number = member.doubleValue, range.contains(number) else {
            throw fail(key, "a number from \(JSONWriter.string(.number(range.lowerBound))) to \(JSONWriter.string(.number(range.upperBound)))")
        }
        return number
    }

    func choice<T>(_ key: String, _ parse: (String) -> T?, _ choices: [String]) throws(RequestError) -> T? {
        guard let member = value[key] else { return nil }
        guard let text = member.stringValue, let parsed = parse(text) else { throw fail(key, "one of \(choices.joined(separator: "|"))") }
        return parsed
    }
}

extension Request {
    /// The request's class on the wire.
    public var requestClass: String {
        switch self {
        case .watch: "WATCH"
        case .poll: "POLL"
        case .devices: "DEVICES"
        case .orientation: "ORIENTATION"
        case .snapshot: "SNAPSHOT"
        case .status: "STATUS"
        case .history: "HISTORY"
        }
    }

    /// The request as a JSON object, `class` first, only the members given:
    /// `Request.parse(JSONWriter.bytes(r.json)) == r`.
    public var json: JSONValue {
        var object = JSONObjectBuilder(class: requestClass)
        switch self {
        case let .watch(watch):
            object.add("enable", watch.enable)
            object.add("devices", watch.devices.map { .array($0.map(JSONValue.string)) })
            object.add("text", watch.text)
            object.add("frame", watch.frame)
            object.add("level", watch.level?.rawValue)
            object.add("min_confidence", watch.minimumConfidence)
            object.add("changes_only", watch.changesOnly)
            object.add("tracks", watch.tracks)
            object.add("matches", watch.matches)
            object.add("codes", watch.codes)
        case .poll, .devices, .status:
            break
        case let .orientation(device, settings):
            object.add("device", device)
            object.add("device_orientation", settings.deviceOrientation?.rawValue)
            object.add("camera_position", settings.cameraPosition?.rawValue)
            if settings.automaticRotation == true {
                object.add("rotation", "auto" as String)
            } else {
                object.add("rotation", settings.rotation)
            }
            object.add("mirror", settings.mirror)
        case let .snapshot(device, boxes, maximumWidth, color):
            object.add("device", device)
            if boxes { object.add("boxes", true) }
            object.add("max_width", maximumWidth)
            if color { object.add("color", true) }
        case let .history(query):
            object.add("device", query.device)
            object.add("rule", query.rule)
            object.add("since", query.since)
            object.add("limit", query.limit)
        }
        return object.value
    }

    /// The request as one line's bytes (without the newline).
    public var bytes: [UInt8] { JSONWriter.bytes(json) }
}
