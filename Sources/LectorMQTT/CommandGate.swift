import Foundation
import LectorProtocol

/// What stands between the broker's clients and lectord: every command from MQTT is
/// checked (size, rate) and queued here, and the bridge sends at most
/// ``maximumInFlight`` of them to lectord at a time, so that no client of the broker can
/// flood lectord or block the bridge's reading of lectord's socket. A snapshot asked for
/// again while one for the same camera waits is merged with it. Pure: the bridge's one
/// thread owns it.
public struct CommandGate: Sendable {
    /// The largest command payload taken, in bytes (lectord's requests are at most
    /// ``ProtocolVersion/maximumRequestLine``; an ORIENTATION or SNAPSHOT is far smaller).
    public static let maximumPayload = 4096
    /// Commands sent to lectord and not yet answered, at most.
    public static let maximumInFlight = 4
    /// Seconds after which a command lectord has not answered no longer counts as in
    /// flight (lectord answers in milliseconds; a reply lost with a connection must not
    /// hold the gate shut).
    public static let replyTimeout = 5.0

    /// Why a command was not queued.
    public enum Refusal: Equatable, Sendable {
        /// Its payload is over ``maximumPayload`` bytes.
        case tooLarge(Int)
        /// More than the rate allows came in (the token bucket is empty).
        case overRate
        /// The queue is full.
        case queueFull
    }

    /// A request waiting for lectord, with the camera it is for.
    public struct Command: Equatable, Sendable {
        public var request: Request
        public var device: String

        public init(request: Request, device: String) {
            self.request = request
            self.device = device
        }

        var isSnapshot: Bool { if case .snapshot = request { true } else { false } }
    }

    /// Commands a second taken on average, and at once after a quiet spell.
    public let rate: Double
    public let burst: Double
    /// Commands waiting at most.
    public let capacity: Int
    private var tokens: Double
    private var refilled: Date?
    private var queue: [Command] = []
    /// When each command in flight was sent, oldest first.
    private var sent: [Date] = []
    /// Commands refused since start, by any reason, and merged into a waiting one.
    public private(set) var refused = 0
    public private(set) var merged = 0

    public init(rate: Double = 10, burst: Double = 20, capacity: Int = 32) {
        self.rate = rate
        self.burst = burst
        self.capacity = capacity
        tokens = burst
    }

    /// Commands waiting.
    public var count: Int { queue.count }

    /// Checks a command's payload size before it is parsed; nil when it may be parsed.
    public mutating func checkSize(_ bytes: Int) -> Refusal? {
        guard bytes > Self.maximumPayload else { return nil }
        refused += 1
        return .tooLarge(bytes)
    }

    /// Queues `command` arriving at `now`, or says why not (counted in ``refused``).
    public mutating func offer(_ command: Command, now: Date) -> Refusal? {
        if let refilled { tokens = min(burst, tokens + now.timeIntervalSince(refilled) * rate) }
        refilled = now
        if command.isSnapshot, let index = queue.firstIndex(where: { $0.isSnapshot && $0.device == command.device }) {
            queue[index] = command  // the newest asking wins; one snapshot per camera waits
            merged += 1
            return nil
        }
        guard tokens >= 1 else {
            refused += 1
            return .overRate
        }
        guard queue.count < capacity else {
            refused += 1
            return .queueFull
        }
        tokens -= 1
        queue.append(command)
        return nil
    }

    /// The next command to send at `now`, when fewer than ``maximumInFlight`` are
    /// unanswered (counted in flight from now on, until ``answered()`` or ``replyTimeout``).
    public mutating func next(now: Date) -> Command? {
        sent.removeAll { now.timeIntervalSince($0) > Self.replyTimeout }
        guard sent.count < Self.maximumInFlight, !queue.isEmpty else { return nil }
        sent.append(now)
        return queue.removeFirst()
    }

    /// Commands sent and not answered yet.
    public var inFlight: Int { sent.count }

    /// lectord answered a command (its reply or an ERROR).
    public mutating func answered() {
        if !sent.isEmpty { sent.removeFirst() }
    }

    /// Forgets the waiting commands (lectord was lost: they would go to a new connection
    /// long after they were asked for); returns how many.
    public mutating func clear() -> Int {
        sent.removeAll()
        defer { queue.removeAll() }
        return queue.count
    }
}
