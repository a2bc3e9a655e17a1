import LectorProtocol

/// Home Assistant entities of a camera's rules (issue 37): per rule a sensor of its last
/// accepted reading (attributes: the known entry's name and text, confidence, time, the
/// text as read), a binary sensor `known` for a rule with a known list, and an image of
/// the last accepted reading's crop. A meter rule's sensor is `total_increasing` (with
/// `device_class: energy` for a unit of Wh, kWh or MWh). The topics, under the camera's:
/// `rule/<id>` (the last accepted MATCH, retained), `rule/<id>/crop` (its crop, JPEG,
/// retained), `rule/<id>/rejected` (each rejected MATCH, not retained).
extension Discovery {
    /// The topic level of `rule`: `<zone>_<name>`, or `<name>` for a camera-wide rule.
    public static func ruleLevel(_ rule: RuleInfo) -> String {
        TopicLevel.safe(rule.zone.map { "\($0)_\(rule.name)" } ?? rule.name)
    }

    /// `<root>/<camera>/rule/<id>`: where `rule`'s accepted readings go.
    public func ruleTopic(camera: String, rule: RuleInfo) -> String {
        "\(root)/\(camera)/rule/\(Self.ruleLevel(rule))"
    }

    /// Every (topic, payload) pair that announces `rule` of `camera`.
    public func ruleConfigs(camera: String, device: String, rule: RuleInfo, release: String?) -> [(topic: String, payload: JSONValue)] {
        let node = node(camera: camera)
        let haDevice = haDevice(node: node, device: device, release: release)
        let id = "rule_" + Self.ruleLevel(rule)
        let state = ruleTopic(camera: camera, rule: rule)
        let title = rule.zone.map { "\($0) \(rule.name)" } ?? rule.name
        var sensor: [(String, JSONValue)] = [
            ("state_topic", .string(state)),
            ("value_template", .string(rule.meter ? RuleTemplate.meterValue : RuleTemplate.text)),
            ("json_attributes_topic", .string(state)),
            ("json_attributes_template", .string(RuleTemplate.attributes)),
            ("icon", .string(rule.meter ? "mdi:meter-electric-outline" : "mdi:card-text-outline")),
        ]
        if rule.meter {
            sensor.append(("state_class", .string("total_increasing")))
            if let unit = rule.unit {
                sensor.append(("unit_of_measurement", .string(unit)))
                if ["Wh", "kWh", "MWh"].contains(unit) { sensor.append(("device_class", .string("energy"))) }
            }
        }
        var configs = [
            (topic(component: "sensor", node: node, object: id),
             entity(node: node, object: id, name: "Rule \(title)", haDevice: haDevice, sensor)),
            (topic(component: "image", node: node, object: "\(id)_crop"),
             entity(node: node, object: "\(id)_crop", name: "Rule \(title) crop", haDevice: haDevice, [
                ("image_topic", .string("\(state)/crop")),
                ("content_type", .string("image/jpeg")),
             ])),
        ]
        if rule.known {
            configs.append((topic(component: "binary_sensor", node: node, object: "\(id)_known"),
                            entity(node: node, object: "\(id)_known", name: "Rule \(title) known", haDevice: haDevice, [
                                ("state_topic", .string(state)),
                                ("value_template", .string(RuleTemplate.known)),
                                ("icon", .string("mdi:account-check-outline")),
                            ])))
        }
        return configs
    }

    /// The config topics of `rule` of `camera`, to clear when it goes.
    public func ruleConfigTopics(camera: String, rule: RuleInfo) -> [String] {
        var known = rule
        known.known = true
        return ruleConfigs(camera: camera, device: camera, rule: known, release: nil).map(\.topic)
    }

    /// The rules' templates; like ``Template``, each renders something valid (or `None`)
    /// whatever arrives (the empty payload that clears a removed rule's state).
    enum RuleTemplate {
        /// The reading (a MATCH's `text`).
        static let text = Template.object + "{{ s.get('text', 'None') }}"
        /// A meter's value: the reading as a number, or unknown.
        static let meterValue = Template.object + "{{ s.get('text', '') | float('None') }}"
        /// The known list's verdict: ON for an entry, OFF for `null`, unknown without a reading.
        static let known = Template.object
            + "{{ ('ON' if s.get('known') is mapping else 'OFF') if 'known' in s else 'None' }}"
        /// The attributes: the known entry's name, text and distance, confidence, time, read,
        /// and the code's format for a rule on codes (`code`, else null).
        /// (`known_name`, not `name`: Home Assistant drops an MQTT attribute called `name`.)
        static let attributes = Template.object
            + "{% set k = s.get('known') if s.get('known') is mapping else {} %}"
            + "{{ {'known_name': k.get('name'), 'known': k.get('text'), 'distance': k.get('distance'), "
            + "'confidence': s.get('confidence'), 'time': s.get('time'), 'read': s.get('read', s.get('text')), "
            + "'corrections': s.get('corrections', 0), 'code': s.get('code')} | tojson }}"
    }
}
