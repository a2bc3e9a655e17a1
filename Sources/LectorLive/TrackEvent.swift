import LectorImaging
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
    public func message(transform: OrientationTransform) -> TrackMessage {
        TrackMessage(device: device, id: id, event: TrackMessage.Event(rawValue: kind.rawValue) ?? .new, text: text, box: box,
                     corners: transform.sourceCorners(of: box).map { PixelPoint(x: $0.x, y: $0.y) },
                     confidence: (confidence * 1000).rounded() / 1000, observations: observations,
                     firstSeen: firstSeen.rfc3339, lastSeen: lastSeen.rfc3339)
    }
}
