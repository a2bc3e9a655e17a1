/// MATCH (proto_minor 5): a rule's regular expression matched a line of a camera's text
/// (for `settled_only` rules, a line track's new settled reading). Sent to watchers with
/// `matches: true`.
public struct MatchMessage: ProtocolMessage {
    public static let messageClass = "MATCH"
    public var device: String
    /// The zone the line was read in; absent for a camera without zones.
    public var zone: String?
    /// The rule's own name (`any` for `[rule meter/reading/any]`).
    public var rule: String
    /// The line's text (a track's settled reading) that matched.
    public var text: String
    /// The part of `text` the expression matched.
    public var matched: String
    /// The expression's capture groups, in order (`""` for a group that took no part).
    public var groups: [String]
    /// Where the line is, in the upright image, and its corners in captured-frame pixels.
    public var box: PixelBox
    public var corners: [PixelPoint]
    /// 0…1: the line's (or track's) confidence.
    public var confidence: Double
    /// The line track, when the match is of a settled reading.
    public var track: String?
    /// The frame's sequence number and capture time (RFC 3339 UTC, milliseconds).
    public var sequence: UInt32
    public var time: String

    public init(device: String, zone: String?, rule: String, text: String, matched: String, groups: [String], box: PixelBox,
                corners: [PixelPoint], confidence: Double, track: String?, sequence: UInt32, time: String) {
        self.device = device
        self.zone = zone
        self.rule = rule
        self.text = text
        self.matched = matched
        self.groups = groups
        self.box = box
        self.corners = corners
        self.confidence = confidence
        self.track = track
        self.sequence = sequence
        self.time = time
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        let corners = try m.required("corners", m.points)
        self.init(device: try m.required("device", m.string), zone: try m.string("zone"), rule: try m.required("rule", m.string),
                  text: try m.required("text", m.string), matched: try m.required("matched", m.string),
                  groups: try m.required("groups", m.strings), box: try m.required("box", m.box), corners: corners,
                  confidence: try m.required("confidence", m.double), track: try m.string("track"),
                  sequence: try m.sequence("seq"), time: try m.required("time", m.string))
    }

    public var json: JSONValue {
        var message = JSONObjectBuilder(class: Self.messageClass)
        message.add("device", device)
        message.add("zone", zone)
        message.add("rule", rule)
        message.add("text", text)
        message.add("matched", matched)
        message.add("groups", .array(groups.map(JSONValue.string)))
        message.add("box", boxJSON(box))
        message.add("corners", .array(corners.map(\.json)))
        message.add("confidence", confidence)
        message.add("track", track)
        message.add("seq", Int(sequence))
        message.add("time", time)
        return message.value
    }
}
