/// MATCH (proto_minor 5; `read`, `corrections`, `known`, `rejected`, `evidence` 11): a rule's regular expression matched a line of a camera's text
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
    /// The text as the recognizer read it, for a rule that corrects look-alike characters
    /// (`alike`); `text` is then the corrected reading (proto_minor 11).
    public var read: String?
    /// How many look-alike characters were swapped to make `text` from `read` (proto_minor 11).
    public var corrections: Int?
    /// For a rule with a known list: the entry the reading was taken as, or `.unknown`
    /// (written `"known":null`); nil for a rule without one (proto_minor 11).
    public var known: KnownLookup?
    /// Why the reading was not accepted (a meter rule's sanity checks): no hook ran for
    /// it and it is no sensor's value; nil for an accepted reading (proto_minor 11).
    public var rejected: String?
    /// The files kept as the evidence of an accepted reading (`--evidence`, proto_minor 11).
    public var evidence: MatchEvidence?
    /// The format of the QR code or barcode matched, for a rule on codes (`source =
    /// codes|both`); nil for a line of text (proto_minor 14).
    public var code: CodeFormat?

    public init(device: String, zone: String?, rule: String, text: String, matched: String, groups: [String], box: PixelBox,
                corners: [PixelPoint], confidence: Double, track: String?, sequence: UInt32, time: String,
                read: String? = nil, corrections: Int? = nil, known: KnownLookup? = nil, rejected: String? = nil,
                evidence: MatchEvidence? = nil) {
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
        self.read = read
        self.corrections = corrections
        self.known = known
        self.rejected = rejected
        self.evidence = evidence
    }

    /// Whether the reading was accepted (a hook runs for it, sensors take it).
    public var isAccepted: Bool { rejected == nil }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        let corners = try m.required("corners", m.points)
        self.init(device: try m.required("device", m.string), zone: try m.string("zone"), rule: try m.required("rule", m.string),
                  text: try m.required("text", m.string), matched: try m.required("matched", m.string),
                  groups: try m.required("groups", m.strings), box: try m.required("box", m.box), corners: corners,
                  confidence: try m.required("confidence", m.double), track: try m.string("track"),
                  sequence: try m.sequence("seq"), time: try m.required("time", m.string),
                  read: try m.string("read"), corrections: try m.int("corrections"), known: try KnownLookup(m, "known"),
                  rejected: try m.string("rejected"), evidence: try MatchEvidence(m, "evidence"))
        code = try m.choice("code", CodeFormat.self)
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
        message.add("read", read)
        message.add("corrections", corrections)
        message.add("known", known?.json)
        message.add("rejected", rejected)
        message.add("evidence", evidence?.json)
        message.add("code", code?.rawValue)
        return message.value
    }
}
