import LectorProtocol

/// Home Assistant MQTT discovery for one camera: one HA device with a text sensor, a
/// recognized-frames-per-second sensor, a "streaming" binary sensor and an image entity
/// for the snapshot, each a retained `<discovery prefix>/<component>/<node>/<object>/config`.
public struct Discovery: Sendable {
    /// HA keeps a sensor's state to 255 characters.
    public static let maximumState = 255

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
        var haDevice = JSONObjectBuilder()
        haDevice.add("identifiers", .array([.string(node)]))
        haDevice.add("name", "Lector \(hostname) \(device)")
        haDevice.add("manufacturer", "Lector")
        haDevice.add("model", "lectord camera")
        haDevice.add("sw_version", release)

        func entity(_ object: String, _ name: String, _ members: [(String, JSONValue)]) -> JSONValue {
            var payload = JSONObjectBuilder()
            payload.add("name", name)
            payload.add("unique_id", "\(node)_\(object)")
            payload.add("object_id", "\(node)_\(object)")
            payload.add("availability_topic", "\(root)/availability")
            for (key, value) in members { payload.add(key, value) }
            payload.add("device", haDevice.value)
            return payload.value
        }

        return [
            (topic(component: "sensor", node: node, object: "text"),
             entity("text", "Text", [
                ("state_topic", .string("\(base)/text")),
                ("value_template", .string("{{ value[:\(Self.maximumState)] }}")),
                ("json_attributes_topic", .string("\(base)/text")),
                ("json_attributes_template", .string("{{ {'text': value} | tojson }}")),
                ("icon", .string("mdi:text-recognition")),
             ])),
            (topic(component: "sensor", node: node, object: "recognize_fps"),
             entity("recognize_fps", "Recognized frames per second", [
                ("state_topic", .string("\(base)/status")),
                ("value_template", .string("{{ value_json.recognize_fps }}")),
                ("unit_of_measurement", .string("fps")),
                ("state_class", .string("measurement")),
                ("entity_category", .string("diagnostic")),
                ("icon", .string("mdi:speedometer")),
             ])),
            (topic(component: "binary_sensor", node: node, object: "streaming"),
             entity("streaming", "Camera streaming", [
                ("state_topic", .string("\(base)/status")),
                ("value_template", .string("{{ 'ON' if value_json.state == 'streaming' else 'OFF' }}")),
                ("device_class", .string("running")),
             ])),
            (topic(component: "image", node: node, object: "snapshot"),
             entity("snapshot", "Snapshot", [
                ("image_topic", .string("\(base)/snapshot")),
                ("content_type", .string("image/jpeg")),
             ])),
        ]
    }

    /// The config topics of `camera`, to clear (empty retained payloads) when it goes.
    public func configTopics(camera: String) -> [String] {
        configs(camera: camera, device: camera, release: nil).map(\.topic)
    }

    private func topic(component: String, node: String, object: String) -> String {
        "\(discoveryPrefix)/\(component)/\(node)/\(object)/config"
    }
}
