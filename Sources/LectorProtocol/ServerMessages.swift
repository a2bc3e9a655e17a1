/// The objects the server sends besides TEXT and FRAME (which ``TextReport`` and
/// ``FrameReport`` build). Each starts with `class`; none holds a null.
public enum ServerMessages {
    /// Sent on connect.
    public static func version(release: String) -> JSONValue {
        var message = JSONObjectBuilder(class: "VERSION")
        message.add("release", release)
        message.add("proto_major", ProtocolVersion.major)
        message.add("proto_minor", ProtocolVersion.minor)
        return message.value
    }

    /// A refused request.
    public static func error(_ message: String, request: String? = nil) -> JSONValue {
        var object = JSONObjectBuilder(class: "ERROR")
        object.add("message", message)
        object.add("request", request)
        return object.value
    }

    /// Stream messages dropped for this client since the last notice (back-pressure).
    public static func overflow(dropped: Int, total: Int) -> [UInt8] {
        var object = JSONObjectBuilder(class: "OVERFLOW")
        object.add("dropped", dropped)
        object.add("dropped_total", total)
        return JSONWriter.bytes(object.value)
    }

    /// The reply to WATCH: the subscription now in force.
    public static func watch(_ settings: WatchSettings) -> JSONValue {
        var object = JSONObjectBuilder(class: "WATCH")
        object.add("enable", settings.enable)
        object.add("devices", .array((settings.devices ?? ["all"]).map(JSONValue.string)))
        object.add("text", settings.text)
        object.add("frame", settings.frame)
        object.add("level", settings.level.rawValue)
        object.add("min_confidence", settings.minimumConfidence)
        object.add("changes_only", settings.changesOnly)
        return object.value
    }

    /// One camera in a DEVICES message.
    public static func device(_ info: DeviceInfo, orientation settings: OrientationSettings, watched: Bool) -> JSONValue {
        var object = JSONObjectBuilder(class: "DEVICE")
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
        object.add("orientation", orientationJSON(settings.imageOrientation))
        object.add("device_orientation", settings.deviceOrientation?.rawValue)
        object.add("camera_position", (settings.cameraPosition ?? .back).rawValue)
        object.add("rotation", settings.imageOrientation.rotation)
        object.add("mirror", settings.imageOrientation.isMirrored)
        object.add("watched", watched)
        return object.value
    }

    /// DEVICES: every camera.
    public static func devices(_ devices: [JSONValue]) -> JSONValue {
        var object = JSONObjectBuilder(class: "DEVICES")
        object.add("devices", .array(devices))
        return object.value
    }

    /// The reply to ORIENTATION.
    public static func orientation(device: String, settings: OrientationSettings) -> JSONValue {
        var object = JSONObjectBuilder(class: "ORIENTATION")
        object.add("device", device)
        object.add("orientation", orientationJSON(settings.imageOrientation))
        object.add("exif", settings.imageOrientation.exif)
        object.add("device_orientation", settings.deviceOrientation?.rawValue)
        object.add("camera_position", (settings.cameraPosition ?? .back).rawValue)
        object.add("rotation", settings.imageOrientation.rotation)
        object.add("mirror", settings.imageOrientation.isMirrored)
        return object.value
    }

    /// The reply to SNAPSHOT.
    public static func snapshot(device: String, sequence: UInt32, width: Int, height: Int, jpeg: [UInt8]) -> JSONValue {
        var object = JSONObjectBuilder(class: "SNAPSHOT")
        object.add("device", device)
        object.add("seq", Int(sequence))
        object.add("format", "jpeg")
        object.add("width", width)
        object.add("height", height)
        object.add("data", Base64.encode(jpeg))
        return object.value
    }
}
