import LectorProtocol
import LectorSystem

/// A change in what a camera's line tracks say: the content of a TRACK message.
public struct TrackEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// The track settled for the first time.
        case new
        /// Its settled consensus changed.
        case changed
        /// It has not been seen for the track timeout.
        case gone
    }

    public var device: String
    public var id: String
    public var kind: Kind
    /// The consensus (for `gone`: the text last announced).
    public var text: String
    /// Where the line was last seen, in the upright image.
    public var box: PixelBox
    public var confidence: Double
    public var observations: Int
    public var firstSeen: MonotonicInstant
    public var lastSeen: MonotonicInstant

    public init(device: String, id: String, kind: Kind, text: String, box: PixelBox, confidence: Double,
                observations: Int, firstSeen: MonotonicInstant, lastSeen: MonotonicInstant) {
        self.device = device
        self.id = id
        self.kind = kind
        self.text = text
        self.box = box
        self.confidence = confidence
        self.observations = observations
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }

    /// The TRACK message; `transform` maps the box to captured-frame corners.
    public func message(transform: OrientationTransform) -> JSONValue {
        var message = JSONObjectBuilder(class: "TRACK")
        message.add("device", device)
        message.add("id", id)
        message.add("event", kind.rawValue)
        message.add("text", text)
        message.add("box", boxJSON(box))
        message.add("corners", .array(transform.sourceCorners(of: box).map { .array([.int($0.x), .int($0.y)]) }))
        message.add("confidence", (confidence * 1000).rounded() / 1000)
        message.add("observations", observations)
        message.add("first_seen", firstSeen.rfc3339)
        message.add("last_seen", lastSeen.rfc3339)
        return message.value
    }
}
