/// One rule of a camera as DEVICE lists it (proto_minor 11): what a client needs to
/// present its MATCH messages (lector-mqtt's Home Assistant entities per rule).
public struct RuleInfo: Equatable, Sendable {
    /// The rule's own name, MATCH `rule`.
    public var name: String
    /// The zone whose lines it tests; absent for a camera-wide rule.
    public var zone: String?
    /// Whether it has a known list (its MATCH then carries `known`).
    public var known: Bool
    /// Whether it checks meter readings (`monotonic` or `max_rate`): each accepted MATCH
    /// is the meter's new value; rejected ones carry `rejected`.
    public var meter: Bool
    /// The unit of its readings (`unit`, e.g. `kWh`), when the rule gives one.
    public var unit: String?

    public init(name: String, zone: String? = nil, known: Bool = false, meter: Bool = false, unit: String? = nil) {
        self.name = name
        self.zone = zone
        self.known = known
        self.meter = meter
        self.unit = unit
    }

    init(json: JSONValue, messageClass: String, path: String) throws(ProtocolError) {
        let m = try MemberReader(json, messageClass: messageClass, path: path)
        self.init(name: try m.required("name", m.string), zone: try m.string("zone"),
                  known: try m.bool("known") ?? false, meter: try m.bool("meter") ?? false, unit: try m.string("unit"))
    }

    var json: JSONValue {
        var object = JSONObjectBuilder()
        object.add("name", name)
        object.add("zone", zone)
        object.add("known", known)
        object.add("meter", meter)
        object.add("unit", unit)
        return object.value
    }
}
