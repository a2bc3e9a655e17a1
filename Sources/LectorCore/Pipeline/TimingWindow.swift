import LectorProtocol
import LectorSystem

/// The last few hundred recognized frames of a camera, for STATUS: rates and
/// percentiles of recognition time and latency.
public struct TimingWindow: Sendable {
    struct Sample {
        var time: MonotonicInstant
        var captured: Int
        var recognized: Int
        var recognizeMilliseconds: Double
        var latencyMilliseconds: Double
    }

    static let capacity = 256
    /// Rates are measured over at most this many seconds back.
    static let rateSeconds = 10.0
    private var samples: [Sample] = []
    private var next = 0

    public init() {}

    mutating func add(_ frame: FrameReport, at time: MonotonicInstant) {
        let sample = Sample(time: time, captured: frame.counters.captured, recognized: frame.counters.recognized,
                            recognizeMilliseconds: frame.recognizeMilliseconds, latencyMilliseconds: frame.latencyMilliseconds)
        if samples.count < Self.capacity {
            samples.append(sample)
        } else {
            samples[next] = sample
        }
        next = (next + 1) % Self.capacity
    }

    private var ordered: [Sample] { samples.sorted { $0.time < $1.time } }

    /// Captured and recognized frames per second over the recent window; 0 when the
    /// last sample is older than the window (the camera stopped).
    public func rates(now: MonotonicInstant = .now()) -> (captured: Double, recognized: Double) {
        let recent = ordered.filter { now.milliseconds(since: $0.time) <= Self.rateSeconds * 1000 }
        guard let first = recent.first, let last = recent.last, recent.count >= 2 else { return (0, 0) }
        let seconds = last.time.milliseconds(since: first.time) / 1000
        guard seconds > 0 else { return (0, 0) }
        return (Double(last.captured - first.captured) / seconds, Double(last.recognized - first.recognized) / seconds)
    }

    /// p50 and p99 of recognition time, or nil without samples.
    public var recognizeMilliseconds: (p50: Double, p99: Double)? { RecentDurations.percentiles(samples.map(\.recognizeMilliseconds)) }

    /// p50 and p99 of capture-to-publish latency, or nil without samples.
    public var latencyMilliseconds: (p50: Double, p99: Double)? { RecentDurations.percentiles(samples.map(\.latencyMilliseconds)) }
}
