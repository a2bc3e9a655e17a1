import LectorProtocol

/// Home Assistant entities of a camera's QR codes and barcodes (issue 48): a sensor
/// "Code" whose state is the text of the last code seen (attributes: its format, zone,
/// time, box, the whole text) and an event entity "Code seen" that fires once per
/// appearance, its event type the code's format. The topics, under the camera's:
/// `code` (the last CODE as lectord sent it, retained) and `code/event` (each CODE, not
/// retained: an event replayed by the broker would be a code seen again).
extension Discovery {
    /// `<root>/<camera>/code`: the camera's last code (retained).
    public func codeTopic(camera: String) -> String { "\(root)/\(camera)/code" }

    /// `<root>/<camera>/code/event`: each code as it comes into view (not retained).
    public func codeEventTopic(camera: String) -> String { "\(root)/\(camera)/code/event" }

    /// Every (topic, payload) pair that announces the code entities of `camera`.
    public func codeConfigs(camera: String, device: String, release: String?) -> [(topic: String, payload: JSONValue)] {
        let node = node(camera: camera)
        let haDevice = haDevice(node: node, device: device, release: release)
        let state = codeTopic(camera: camera)
        return [
            (topic(component: "sensor", node: node, object: "code"),
             entity(node: node, object: "code", name: "Code", haDevice: haDevice, [
                ("state_topic", .string(state)),
                ("value_template", .string(CodeTemplate.text)),
                ("json_attributes_topic", .string(state)),
                ("json_attributes_template", .string(CodeTemplate.attributes)),
                ("icon", .string("mdi:qrcode-scan")),
             ])),
            (topic(component: "event", node: node, object: "code_seen"),
             entity(node: node, object: "code_seen", name: "Code seen", haDevice: haDevice, [
                ("state_topic", .string(codeEventTopic(camera: camera))),
                ("value_template", .string(CodeTemplate.event)),
                ("event_types", .array(CodeFormat.allCases.map { .string($0.rawValue) })),
                ("icon", .string("mdi:qrcode")),
             ])),
        ]
    }

    /// The config topics of the code entities of `camera`, to clear when it goes.
    public func codeConfigTopics(camera: String) -> [String] {
        codeConfigs(camera: camera, device: camera, release: nil).map(\.topic)
    }

    /// The codes' templates; like ``Template``, each renders something valid (or `None`,
    /// or nothing for the event) whatever arrives (the empty payload that clears a
    /// removed camera's code).
    enum CodeTemplate {
        /// The code's text, cut to 254 characters and `…` beyond what HA keeps.
        static let text = Template.object + "{% set t = s.get('text') %}{% if t is string %}"
            + "{% if t | length > \(maximumState) %}{{ t[:\(maximumState - 1)] }}…{% else %}{{ t }}{% endif %}"
            + "{% else %}None{% endif %}"
        /// The attributes: format, zone, capture time, box, the whole text and whether the state is cut.
        static let attributes = Template.object
            + "{{ {'format': s.get('format'), 'zone': s.get('zone'), 'time': s.get('time'), 'box': s.get('box'), "
            + "'text': s.get('text'), 'cut': (s.get('text') or '') | length > \(maximumState)} | tojson }}"
        /// The event: its type the format, with the text, zone, time and box; nothing
        /// (HA ignores it) for a payload that is not a CODE.
        static let event = Template.object
            + "{% if s.get('format') is string %}{{ {'event_type': s.get('format'), 'text': s.get('text'), "
            + "'zone': s.get('zone'), 'time': s.get('time'), 'box': s.get('box')} | tojson }}{% endif %}"
    }
}
