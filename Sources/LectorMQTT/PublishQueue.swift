/// A message waiting for the broker.
public struct OutboundMessage: Equatable, Sendable {
    /// What may be dropped when the queue is full.
    public enum Kind: Equatable, Sendable {
        /// Retained state that a newer value replaces (text, status, snapshot): dropped first.
        case state
        /// Events (TRACK): dropped when no state message is left to drop.
        case event
        /// Availability, discovery and their removal: never dropped.
        case control
    }

    public var topic: String
    public var payload: [UInt8]
    public var qos: Int32
    public var retain: Bool
    public var kind: Kind

    public init(topic: String, payload: [UInt8], qos: Int32, retain: Bool, kind: Kind) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.kind = kind
    }
}

/// The bounded queue between lectord's socket and a (possibly slow or absent) broker.
/// A retained message replaces any queued one for the same topic (only the newest value
/// matters, and nothing older is published after it); beyond `capacity` the oldest
/// `state` messages are dropped first, then the oldest events; `control` messages stay.
/// A retained value dropped for lack of room is kept aside and queued again once there is
/// room (unless a newer value of its topic came meanwhile), so the broker always ends with
/// every topic's current value, even one that does not change again (a still scene's text).
/// Adding never blocks.
public struct PublishQueue: Sendable {
    /// Messages kept at most (beyond it only `control` messages are added).
    public let capacity: Int
    private var messages: [OutboundMessage] = []
    /// Retained values dropped for lack of room, the newest per topic, oldest first.
    private var setAside: [OutboundMessage] = []
    /// Messages dropped for lack of room, in all.
    public private(set) var dropped = 0

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Messages waiting.
    public var count: Int { messages.count }
    public var isEmpty: Bool { messages.isEmpty }
    public var first: OutboundMessage? { messages.first }
    /// The queued topics, oldest first (for tests).
    public var topics: [String] { messages.map(\.topic) }

    /// Adds a message (never blocks): replaces a queued retained message of the same topic,
    /// then drops the oldest `state`, else the oldest `event`, while over capacity.
    public mutating func enqueue(_ message: OutboundMessage) {
        if message.retain {
            messages.removeAll { $0.retain && $0.topic == message.topic }
            setAside.removeAll { $0.topic == message.topic }
        }
        messages.append(message)
        while messages.count > capacity {
            if let index = messages.firstIndex(where: { $0.kind == .state }) ?? messages.firstIndex(where: { $0.kind == .event }) {
                let lost = messages.remove(at: index)
                if lost.retain { setAside.append(lost) }
                dropped += 1
            } else {
                break
            }
        }
    }

    /// Removes the oldest message (after it was handed to the broker); a retained value
    /// set aside takes the room it leaves.
    @discardableResult
    public mutating func removeFirst() -> OutboundMessage? {
        guard !messages.isEmpty else { return nil }
        let first = messages.removeFirst()
        while messages.count < capacity, !setAside.isEmpty { messages.append(setAside.removeFirst()) }
        return first
    }
}
