/// VERSION: sent on connect.
public struct VersionMessage: ProtocolMessage {
    public static let messageClass = "VERSION"
    public var release: String
    public var protocolMajor: Int
    public var protocolMinor: Int

    public init(release: String, protocolMajor: Int = ProtocolVersion.major, protocolMinor: Int = ProtocolVersion.minor) {
        self.release = release
        self.protocolMajor = protocolMajor
        self.protocolMinor = protocolMinor
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        self.init(release: try m.required("release", m.string), protocolMajor: try m.required("proto_major", m.int),
                  protocolMinor: try m.required("proto_minor", m.int))
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder(class: Self.messageClass)
        object.add("release", release)
        object.add("proto_major", protocolMajor)
        object.add("proto_minor", protocolMinor)
        return object.value
    }
}

/// ERROR: a refused request.
public struct ErrorMessage: ProtocolMessage {
    public static let messageClass = "ERROR"
    public var message: String
    /// The class of the refused request, when it had a known one.
    public var request: String?

    public init(_ message: String, request: String? = nil) {
        self.message = message
        self.request = request
    }

    public init(_ error: RequestError) { self.init(error.message, request: error.requestClass) }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        self.init(try m.required("message", m.string), request: try m.string("request"))
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder(class: Self.messageClass)
        object.add("message", message)
        object.add("request", request)
        return object.value
    }
}

/// OVERFLOW: stream messages dropped for this client since the last notice
/// (back-pressure).
public struct OverflowMessage: ProtocolMessage {
    public static let messageClass = "OVERFLOW"
    public var dropped: Int
    public var droppedTotal: Int

    public init(dropped: Int, droppedTotal: Int) {
        self.dropped = dropped
        self.droppedTotal = droppedTotal
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        self.init(dropped: try m.required("dropped", m.int), droppedTotal: try m.required("dropped_total", m.int))
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder(class: Self.messageClass)
        object.add("dropped", dropped)
        object.add("dropped_total", droppedTotal)
        return object.value
    }
}

/// WATCH (reply): the subscription now in force.
public struct WatchMessage: ProtocolMessage {
    public static let messageClass = "WATCH"
    public var settings: WatchSettings

    public init(_ settings: WatchSettings) { self.settings = settings }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        var settings = WatchSettings()
        settings.enable = try m.required("enable", m.bool)
        let devices = try m.required("devices", m.strings)
        settings.devices = devices == ["all"] ? nil : devices
        settings.text = try m.required("text", m.bool)
        settings.frame = try m.required("frame", m.bool)
        settings.level = try m.required("level") { (key) throws(ProtocolError) in try m.choice(key, DetailLevel.self) }
        settings.minimumConfidence = try m.required("min_confidence", m.double)
        settings.changesOnly = try m.required("changes_only", m.bool)
        settings.tracks = try m.bool("tracks") ?? false  // absent from servers before 1.3
        settings.matches = try m.bool("matches") ?? false  // absent from servers before 1.5
        settings.codes = try m.bool("codes") ?? false  // absent from servers before 1.14
        self.init(settings)
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder(class: Self.messageClass)
        object.add("enable", settings.enable)
        object.add("devices", .array((settings.devices ?? ["all"]).map(JSONValue.string)))
        object.add("text", settings.text)
        object.add("frame", settings.frame)
        object.add("level", settings.level.rawValue)
        object.add("min_confidence", settings.minimumConfidence)
        object.add("changes_only", settings.changesOnly)
        if settings.tracks { object.add("tracks", true) }  // absent: false (as before 1.3)
        if settings.matches { object.add("matches", true) }  // absent: false (as before 1.5)
        if settings.codes { object.add("codes", true) }  // absent: false (as before 1.14)
        return object.value
    }
}

/// DEVICE: one camera in a DEVICES message.
public struct DeviceMessage: ProtocolMessage {
    public static let messageClass = "DEVICE"
    public var info: DeviceInfo
    /// The orientation in force (`rotation` and `mirror` on the wire derive from it).
    public var orientation: ImageOrientation
    public var deviceOrientation: DeviceOrientation?
    public var cameraPosition: CameraPosition
    public var watched: Bool
    /// Whether the quarter turn is found from the text (`rotation auto`; `"auto":true`
    /// in `orientation`, proto_minor 6).
    public var automaticOrientation: Bool

    public init(info: DeviceInfo, orientation: ImageOrientation, deviceOrientation: DeviceOrientation? = nil,
                cameraPosition: CameraPosition = .back, watched: Bool, automaticOrientation: Bool = false) {
        self.automaticOrientation = automaticOrientation
        self.info = info
        self.orientation = orientation
        self.deviceOrientation = deviceOrientation
        self.cameraPosition = cameraPosition
        self.watched = watched
    }

    /// `info` with the orientation `settings` in force.
    public init(info: DeviceInfo, settings: OrientationSettings, watched: Bool) {
        self.init(info: info, orientation: settings.imageOrientation, deviceOrientation: settings.deviceOrientation,
                  cameraPosition: settings.cameraPosition ?? .back, watched: watched)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        var info = DeviceInfo(path: try m.required("path", m.string),
                              state: try m.required("state") { (key) throws(ProtocolError) in try m.choice(key, CameraState.self) },
                              name: try m.string("name"))
        info.driver = try m.string("driver")
        info.card = try m.string("card")
        info.bus = try m.string("bus")
        info.format = try m.string("format")
        info.width = try m.int("width")
        info.height = try m.int("height")
        info.fps = try m.double("fps")
        info.error = try m.string("error")
        info.warning = try m.string("warning")
        info.zones = try m.array("zones") { (item, path) throws(ProtocolError) in
            try ZoneInfo(json: item, messageClass: Self.messageClass, path: path)
        }
        info.layout = try m.string("layout")
        info.languages = try m.strings("languages")
        info.rules = try m.array("rules") { (item, path) throws(ProtocolError) in
            try RuleInfo(json: item, messageClass: Self.messageClass, path: path)
        }
        // Formats this client does not know (a later lectord's) are left out.
        info.codes = try m.strings("codes")?.compactMap { CodeFormat(rawValue: $0) }
        self.init(info: info, orientation: try m.required("orientation", m.orientation),
                  deviceOrientation: try m.choice("device_orientation", DeviceOrientation.self),
                  cameraPosition: try m.required("camera_position") { (key) throws(ProtocolError) in
                      try m.choice(key, CameraPosition.self)
                  },
                  watched: try m.required("watched", m.bool), automaticOrientation: try m.automaticOrientation("orientation"))
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder(class: Self.messageClass)
        object.add("path", info.path)
        object.add("state", info.state.rawValue)
        object.add("name", info.name)
        object.add("driver", info.driver)
        object.add("card", info.card)
        object.add("bus", info.bus)
        object.add("format", info.format)
        object.add("width", info.width)
        object.add("height", info.height)
        object.add("fps", info.fps)
        object.add("error", info.error)
        object.add("warning", info.warning)
        if let zones = info.zones { object.add("zones", .array(zones.map(\.json))) }
        object.add("layout", info.layout)
        if let languages = info.languages { object.add("languages", .array(languages.map { .string($0) })) }
        if let rules = info.rules { object.add("rules", .array(rules.map(\.json))) }
        if let codes = info.codes { object.add("codes", .array(codes.map { .string($0.rawValue) })) }
        object.add("orientation", orientationJSON(orientation, automatic: automaticOrientation))
        object.add("device_orientation", deviceOrientation?.rawValue)
        object.add("camera_position", cameraPosition.rawValue)
        object.add("rotation", orientation.rotation)
        object.add("mirror", orientation.isMirrored)
        object.add("watched", watched)
        return object.value
    }
}

/// DEVICES: every camera.
public struct DevicesMessage: ProtocolMessage {
    public static let messageClass = "DEVICES"
    public var devices: [DeviceMessage]

    public init(_ devices: [DeviceMessage]) { self.devices = devices }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        self.init(try m.required("devices") { (key) throws(ProtocolError) in
            try m.array(key) { (item, _) throws(ProtocolError) in try DeviceMessage(json: item) }
        })
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder(class: Self.messageClass)
        object.add("devices", .array(devices.map(\.json)))
        return object.value
    }
}

/// ORIENTATION (reply): the orientation now in force on a device.
public struct OrientationMessage: ProtocolMessage {
    public static let messageClass = "ORIENTATION"
    public var device: String
    /// The orientation in force (`exif`, `rotation` and `mirror` on the wire derive from it).
    public var orientation: ImageOrientation
    public var deviceOrientation: DeviceOrientation?
    public var cameraPosition: CameraPosition
    /// Whether the quarter turn is found from the text (`rotation auto`, proto_minor 6).
    public var automaticOrientation: Bool

    public init(device: String, orientation: ImageOrientation, deviceOrientation: DeviceOrientation? = nil,
                cameraPosition: CameraPosition = .back, automaticOrientation: Bool = false) {
        self.automaticOrientation = automaticOrientation
        self.device = device
        self.orientation = orientation
        self.deviceOrientation = deviceOrientation
        self.cameraPosition = cameraPosition
    }

    public init(device: String, settings: OrientationSettings) {
        self.init(device: device, orientation: settings.imageOrientation, deviceOrientation: settings.deviceOrientation,
                  cameraPosition: settings.cameraPosition ?? .back)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        self.init(device: try m.required("device", m.string), orientation: try m.required("orientation", m.orientation),
                  deviceOrientation: try m.choice("device_orientation", DeviceOrientation.self),
                  cameraPosition: try m.required("camera_position") { (key) throws(ProtocolError) in
                      try m.choice(key, CameraPosition.self)
                  },
                  automaticOrientation: try m.automaticOrientation("orientation"))
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder(class: Self.messageClass)
        object.add("device", device)
        object.add("orientation", orientationJSON(orientation, automatic: automaticOrientation))
        object.add("exif", orientation.exif)
        object.add("device_orientation", deviceOrientation?.rawValue)
        object.add("camera_position", cameraPosition.rawValue)
        object.add("rotation", orientation.rotation)
        object.add("mirror", orientation.isMirrored)
        return object.value
    }
}

/// SNAPSHOT (reply): the latest upright frame of a device as a JPEG.
public struct SnapshotMessage: ProtocolMessage {
    public static let messageClass = "SNAPSHOT"
    public var device: String
    public var sequence: UInt32
    /// Always `jpeg` today.
    public var format: String
    public var width: Int
    public var height: Int
    /// The encoded image (Base64 on the wire).
    public var data: [UInt8]
    /// `captured` when the image is the captured frame (a colour preview: TEXT's
    /// `corners` locate the words); absent for the upright frame (TEXT's `box`).
    public var space: String?

    public init(device: String, sequence: UInt32, format: String = "jpeg", width: Int, height: Int, data: [UInt8],
                space: String? = nil) {
        self.space = space
        self.device = device
        self.sequence = sequence
        self.format = format
        self.width = width
        self.height = height
        self.data = data
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        let encoded = try m.required("data", m.string)
        guard let data = Base64.decode(encoded) else { throw m.fail("data", "Base64") }
        self.init(device: try m.required("device", m.string), sequence: try m.sequence("seq"),
                  format: try m.required("format", m.string), width: try m.required("width", m.int),
                  height: try m.required("height", m.int), data: data, space: try m.string("space"))
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder(class: Self.messageClass)
        object.add("device", device)
        object.add("seq", Int(sequence))
        object.add("format", format)
        object.add("width", width)
        object.add("height", height)
        object.add("space", space)
        object.add("data", Base64.encode(data))
        return object.value
    }
}

extension MemberReader {
    /// A frame sequence number (0…2³²−1).
    public func sequence(_ key: String) throws(ProtocolError) -> UInt32 {
        let number = try required(key, int)
        guard let sequence = UInt32(exactly: number) else { throw fail(key, "an integer from 0 to 4294967295") }
        return sequence
    }
}
