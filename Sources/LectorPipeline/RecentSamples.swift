import LectorProtocol
import LectorSystem

/// The last `capacity` samples of something, in a fixed ring: the one ring behind
/// STATUS's rates and percentiles, the server's publish times and the systemd status
/// text's frame rates.
public struct RecentSamples<Element: Sendable>: Sendable {
    public let capacity: Int
    private var storage: [Element] = []
    private var next = 0

    public init(capacity: Int = 256) {
        precondition(capacity > 0, "a ring holds at least one sample")
        self.capacity = capacity
    }

    public mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[next] = element
        }
        next = (next + 1) % capacity
    }

    public mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        next = 0
    }

    /// The samples, oldest first.
    public var ordered: [Element] { storage.count < capacity ? storage : Array(storage[next...] + storage[..<next]) }

    public var last: Element? { storage.isEmpty ? nil : storage[(next + capacity - 1) % capacity] }
}

extension RecentSamples where Element == Double {
    /// Nearest-rank p50 and p99 of the samples, or nil without any.
    public var percentiles: Percentiles? { Percentiles(nearestRankOf: storage) }
}

extension Percentiles {
    /// Nearest-rank p50 and p99 of `values`, or nil when there are none.
    public init?(nearestRankOf values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func rank(_ p: Double) -> Double { sorted[max(0, min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1))] }
        self.init(p50: rank(0.5), p99: rank(0.99))
    }
}

/// A camera's frame counters at one moment: what frame rates are measured from.
public struct CounterPoint: Equatable, Sendable {
    public var time: MonotonicInstant
    public var captured: Int
    public var recognized: Int

    public init(time: MonotonicInstant, captured: Int, recognized: Int) {
        self.time = time
        self.captured = captured
        self.recognized = recognized
    }
}

extension RecentSamples where Element == CounterPoint {
    /// Captured and recognized frames per second between the oldest and newest points of
    /// the last `seconds` before `now`; 0 with fewer than two such points (a camera that
    /// stopped reports no rate).
    public func rates(overLast seconds: Double, now: MonotonicInstant) -> (captured: Double, recognized: Double) {
        let recent = ordered.filter { now.milliseconds(since: $0.time) <= seconds * 1000 }
        guard let first = recent.first, let last = recent.last, recent.count >= 2 else { return (0, 0) }
        let span = last.time.milliseconds(since: first.time) / 1000
        guard span > 0 else { return (0, 0) }
        return (Double(last.captured - first.captured) / span, Double(last.recognized - first.recognized) / span)
    }
}
