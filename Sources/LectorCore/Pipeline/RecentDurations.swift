import LectorProtocol
import LectorSystem

/// The most recent durations of something (the last ``capacity``), for p50 and p99 in
/// STATUS.
public struct RecentDurations: Sendable {
    static let capacity = 256
    private var milliseconds: [Double] = []
    private var next = 0

    public init() {}

    mutating func add(milliseconds value: Double) {
        if milliseconds.count < Self.capacity {
            milliseconds.append(value)
        } else {
            milliseconds[next] = value
        }
        next = (next + 1) % Self.capacity
    }

    /// p50 and p99, or nil without samples.
    public var percentiles: (p50: Double, p99: Double)? { Self.percentiles(milliseconds) }

    /// Nearest-rank percentiles of `values`.
    static func percentiles(_ values: [Double]) -> (p50: Double, p99: Double)? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func rank(_ p: Double) -> Double { sorted[max(0, min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1))] }
        return (rank(0.5), rank(0.99))
    }
}
