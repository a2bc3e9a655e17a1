/// TRACK: a line track of one camera settled (`new`), changed its settled text
/// (`changed`), or has not been seen for the track timeout (`gone`).
public struct TrackMessage: ProtocolMessage {
    public static let messageClass = "TRACK"

    /// What happened to the track.
    public enum Event: String, Sendable, CaseIterable {
        case new, changed, gone
    }

    public var device: String
    /// Unique per device for the daemon's run.
    public var id: String
    public var event: Event
    /// The track's voted text (for `gone`: the text last announced).
    public var text: String
    /// Where the line was last read, in the upright image.
    public var box: PixelBox
    /// The same box's corners in captured-frame pixels.
    public var corners: [PixelPoint]
    /// 0…1: agreement of the readings times the winning words' confidence.
    public var confidence: Double
    /// Readings of the line so far.
    public var observations: Int
    /// Capture times, RFC 3339 UTC with milliseconds.
    public var firstSeen: String
    public var lastSeen: String

    public init(device: String, id: String, event: Event, text: String, box: PixelBox, corners: [PixelPoint],
                confidence: Double, observations: Int, firstSeen: String, lastSeen: String) {
        self.device = device
        self.id = id
        self.event = event
        self.text = text
        self.box = box
        self.corners = corners
        self.confidence = confidence
        self.observations = observations
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        let corners = try m.required("corners", m.points)
        self.init(device: try m.required("device", m.string), id: try m.required("id", m.string),
                  event: try m.required("event") { (key) throws(ProtocolError) in try m.choice(key, Event.self) },
                  text: try m.required("text", m.string), box: try m.required("box", m.box), corners: corners,
                  confidence: try m.required("confidence", m.double), observations: try m.required("observations", m.int),
                  firstSeen: try m.required("first_seen", m.string), lastSeen: try m.required("last_seen", m.string))
    }

    public var json: JSONValue {
        var message = JSONObjectBuilder(class: Self.messageClass)
        message.add("device", device)
        message.add("id", id)
        message.add("event", event.rawValue)
        message.add("text", text)
        message.add("box", boxJSON(box))
        message.add("corners", .array(corners.map(\.json)))
        message.add("confidence", confidence)
        message.add("observations", observations)
        message.add("first_seen", firstSeen)
        message.add("last_seen", lastSeen)
        return message.value
    }
}
