import LectorProtocol

/// Home Assistant MQTT discovery for one camera: one HA device with a text sensor, a
/// recognized-frames-per-second sensor, a "streaming" binary sensor and an image entity
/// for the snapshot, and three controls: a select for the rotation, a button that takes
/// a snapshot and a select for what the text is (``LiveTextMode``); each a retained
/// `<discovery prefix>/<component>/<node>/<object>/config`. The templates
/// (``Template``) never fail, whatever arrives on their topics.
public struct Discovery: Sendable {
    /// HA keeps a sensor's state to 255 characters.
    public static let maximumState = 255
    /// The rotation select's options: clockwise degrees, or `auto` (found from the text).
    public static let rotations = ["0", "90", "180", "270", "auto"]

    public let discoveryPrefix: String
    /// `<prefix>/<hostname>`.
    public let root: String
    public let hostname: String

    public init(discoveryPrefix: String, root: String, hostname: String) {
        self.discoveryPrefix = discoveryPrefix
        self.root = root
        self.hostname = hostname
    }

    /// The node id: `lector_<hostname>_<camera>` (topic-safe).
    public func node(camera: String) -> String { TopicLevel.safe("lector_\(hostname)_\(camera)") }

    /// Every (topic, payload) pair that announces `camera` (its topic level), for
    /// a lectord of `release`; `device` is lectord's name for the camera.
    public func configs(camera: String, device: String, release: String?) -> [(topic: String, payload: JSONValue)] {
        let node = node(camera: camera)
        let base = "\(root)/\(camera)"
        let haDevice = haDevice(node: node, device: device, release: release)
        func entity(_ object: String, _ name: String, _ members: [(String, JSONValue)]) -> JSONValue {
            self.entity(node: node, object: object, name: name, haDevice: haDevice, members)
        }

        return [
            (topic(component: "sensor", node: node, object: "text"),
             entity("text", "Text", [
                ("state_topic", .string("\(base)/text")),
                ("value_template", .string(Template.text)),
                ("json_attributes_topic", .string("\(base)/text")),
                ("json_attributes_template", .string(Template.textAttributes)),
                ("icon", .string("mdi:text-recognition")),
             ])),
            (topic(component: "sensor", node: node, object: "recognize_fps"),
             entity("recognize_fps", "Recognized frames per second", [
                ("state_topic", .string("\(base)/status")),
                ("value_template", .string(Template.recognizeFPS)),
                ("unit_of_measurement", .string("fps")),
                ("state_class", .string("measurement")),
                ("entity_category", .string("diagnostic")),
                ("icon", .string("mdi:speedometer")),
             ])),
            (topic(component: "binary_sensor", node: node, object: "streaming"),
             entity("streaming", "Camera streaming", [
                ("state_topic", .string("\(base)/status")),
                ("value_template", .string(Template.streaming)),
                ("device_class", .string("running")),
             ])),
            (topic(component: "image", node: node, object: "snapshot"),
             entity("snapshot", "Snapshot", [
                ("image_topic", .string("\(base)/snapshot")),
                ("content_type", .string("image/jpeg")),
             ])),
            (topic(component: "select", node: node, object: "rotation"),
             entity("rotation", "Rotation", [
                ("command_topic", .string("\(base)/orientation/set")),
                ("command_template", .string(Template.rotationCommand)),
                ("state_topic", .string("\(base)/orientation")),
                ("value_template", .string(Template.rotation)),
                ("options", .array(Self.rotations.map { .string($0) })),
                ("entity_category", .string("config")),
                ("icon", .string("mdi:screen-rotation")),
             ])),
            (topic(component: "button", node: node, object: "take_snapshot"),
             entity("take_snapshot", "Take snapshot", [
                ("command_topic", .string("\(base)/snapshot/get")),
                ("payload_press", .string(#"{"boxes":true}"#)),
                ("icon", .string("mdi:camera")),
             ])),
            (topic(component: "select", node: node, object: "live_text"),
             entity("live_text", "Live text", [
                ("command_topic", .string("\(base)/live_text/set")),
                ("state_topic", .string("\(base)/live_text")),
                ("value_template", .string(Template.liveText)),
                ("options", .array(LiveTextMode.allCases.map { .string($0.rawValue) })),
                ("entity_category", .string("config")),
                ("icon", .string("mdi:text-box-check-outline")),
             ])),
        ]
    }

    /// The HA device every entity of a camera belongs to.
    func haDevice(node: String, device: String, release: String?) -> JSONValue {
        var haDevice = JSONObjectBuilder()
        haDevice.add("identifiers", .array([.string(node)]))
        haDevice.add("name", "Lector \(hostname) \(device)")
        haDevice.add("manufacturer", "Lector")
        haDevice.add("model", "lectord camera")
        haDevice.add("sw_version", release)
        return haDevice.value
    }

    /// One entity's config: `name`, ids `<node>_<object>`, availability, `members`, device.
    func entity(node: String, object: String, name: String, haDevice: JSONValue, _ members: [(String, JSONValue)]) -> JSONValue {
        var payload = JSONObjectBuilder()
        payload.add("name", name)
        payload.add("unique_id", "\(node)_\(object)")
        payload.add("object_id", "\(node)_\(object)")
        payload.add("availability_topic", "\(root)/availability")
        for (key, value) in members { payload.add(key, value) }
        payload.add("device", haDevice)
        return payload.value
    }

    /// The config topics of `camera`, to clear (empty retained payloads) when it goes.
    public func configTopics(camera: String) -> [String] {
        configs(camera: camera, device: camera, release: nil).map(\.topic)
    }

    func topic(component: String, node: String, object: String) -> String {
        "\(discoveryPrefix)/\(component)/\(node)/\(object)/config"
    }
}
