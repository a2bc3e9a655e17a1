import LectorProtocol

/// A camera's current text as the bridge publishes it: in the ``LiveTextMode/settled``
/// mode (the default) the consensus of its settled tracks (TRACK events) while any
/// exist, else the text of its last TEXT message; in ``LiveTextMode/everyFrame`` always
/// the last TEXT's text.
public struct CameraText: Equatable, Sendable {
    /// A settled track: its consensus text and where it is (for reading order).
    struct Track: Equatable, Sendable {
        var text: String
        var y: Double
        var x: Double
        var arrival: Int
    }

    private var lastText = ""
    private var tracks: [String: Track] = [:]
    private var arrivals = 0

    /// What ``current`` is.
    public var mode = LiveTextMode.settled

    public init() {}

    /// The text to publish now.
    public var current: String {
        guard mode == .settled, !tracks.isEmpty else { return lastText }
        return tracks.values.sorted { ($0.y, $0.x, $0.arrival) < ($1.y, $1.x, $1.arrival) }
            .map(\.text).filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// Number of live tracks.
    public var trackCount: Int { tracks.count }

    /// Takes a TEXT message's `text`.
    public mutating func apply(text message: JSONValue) {
        lastText = message["text"]?.stringValue ?? ""
    }

    /// Takes a TRACK event: `new`/`changed` set the track's text, `gone` removes it.
    public mutating func apply(track message: JSONValue) {
        guard let id = message["id"].map({ $0.stringValue ?? JSONWriter.string($0) }) else { return }
        switch message["event"]?.stringValue {
        case "gone":
            tracks[id] = nil
        case "new", "changed":
            let box = message["box"]
            let y = box?["y"]?.doubleValue ?? tracks[id]?.y ?? Double.greatestFiniteMagnitude
            let x = box?["x"]?.doubleValue ?? tracks[id]?.x ?? 0
            let arrival = tracks[id]?.arrival ?? arrivals
            arrivals += 1
            tracks[id] = Track(text: message["text"]?.stringValue ?? tracks[id]?.text ?? "", y: y, x: x, arrival: arrival)
        default:
            return
        }
    }

    /// Forgets the tracks (lectord's connection ended: its track ids start again).
    public mutating func resetTracks() { tracks.removeAll() }
}
