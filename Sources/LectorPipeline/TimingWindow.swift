import LectorProtocol
import LectorSystem

/// The last few hundred recognized frames of a camera, for STATUS: rates and
/// percentiles of recognition time and latency.
public struct TimingWindow: Sendable {
    struct Sample {
        var counters: CounterPoint
        var recognizeMilliseconds: Double
        var latencyMilliseconds: Double
    }

    /// Rates are measured over at most this many seconds back.
    static let rateSeconds = 10.0
    private var samples = RecentSamples<Sample>(capacity: 256)

    public init() {}

    mutating func add(_ frame: FrameReport, at time: MonotonicInstant) {
        samples.append(Sample(counters: CounterPoint(time: time, captured: frame.counters.captured, recognized: frame.counters.recognized),
                              recognizeMilliseconds: frame.recognizeMilliseconds, latencyMilliseconds: frame.latencyMilliseconds))
    }

    /// Captured and recognized frames per second over the recent window; 0 when the
    /// last sample is older than the window (the camera stopped).
    public func rates(now: MonotonicInstant = .now()) -> (captured: Double, recognized: Double) {
        var points = RecentSamples<CounterPoint>(capacity: samples.capacity)
        for sample in samples.ordered { points.append(sample.counters) }
        return points.rates(overLast: Self.rateSeconds, now: now)
    }

    /// p50 and p99 of recognition time, or nil without samples.
    public var recognizeMilliseconds: Percentiles? { Percentiles(nearestRankOf: samples.ordered.map(\.recognizeMilliseconds)) }

    /// p50 and p99 of capture-to-publish latency, or nil without samples.
    public var latencyMilliseconds: Percentiles? { Percentiles(nearestRankOf: samples.ordered.map(\.latencyMilliseconds)) }
}
