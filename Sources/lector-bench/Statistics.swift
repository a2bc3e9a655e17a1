import Glibc

/// Measured values (milliseconds unless said otherwise) and their order statistics.
struct Samples {
    private(set) var values: [Double] = []

    init(_ values: [Double] = []) { self.values = values }

    mutating func append(_ value: Double) { values.append(value) }

    var count: Int { values.count }
    var isEmpty: Bool { values.isEmpty }
    var mean: Double { values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count) }
    var median: Double { percentile(50) }
    var p99: Double { percentile(99) }
    var max: Double { values.max() ?? .nan }
    /// Sample standard deviation.
    var standardDeviation: Double {
        guard values.count > 1 else { return .nan }
        let mean = self.mean
        return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)).squareRoot()
    }

    /// Nearest-rank percentile.
    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank - 1))]
    }

    /// The first or last `count` values.
    func prefix(_ count: Int) -> Samples { Samples(Array(values.prefix(count))) }
    func suffix(_ count: Int) -> Samples { Samples(Array(values.suffix(count))) }
}

/// Wall-clock and thread CPU time.
enum Clock {
    static func nanoseconds(_ clock: clockid_t = CLOCK_MONOTONIC) -> Int64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// Milliseconds `body` took.
    @inline(__always)
    static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
        let start = nanoseconds()
        try body()
        return Double(nanoseconds() - start) / 1e6
    }

    /// CPU seconds this process used so far (user + system, all threads).
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// A small deterministic generator (xorshift64*), so generated frames are the same on
/// every run and machine.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// Roughly normal with mean 0 and standard deviation 1 (sum of four uniforms).
    mutating func gaussian() -> Double {
        var sum = 0.0
        for _ in 0..<4 { sum += Double(next() >> 11) / Double(1 << 53) }
        return (sum - 2) * 1.7320508
    }
}

/// Formats a number for the table.
func format(_ value: Double, _ digits: Int = 2) -> String {
    guard value.isFinite else { return "-" }
    var text = String(Int((abs(value) * pow(10, Double(digits))).rounded()))
    if digits > 0 {
        while text.count <= digits { text = "0" + text }
        text.insert(".", at: text.index(text.endIndex, offsetBy: -digits))
    }
    return (value < 0 ? "-" : "") + text
}

/// Per-frame stage costs: every stage once to warm up (allocations, caches), then
/// `iterations` rounds of one run of each stage in turn (round-robin, so machine noise
/// falls on all alike). Returns each stage's thread CPU time and wall time, in ms.
func measureStages(_ stages: [() -> Void], iterations: Int) -> (cpu: [Samples], wall: [Samples]) {
    var cpu = [Samples](repeating: Samples(), count: stages.count)
    var wall = [Samples](repeating: Samples(), count: stages.count)
    for stage in stages { stage() }
    for _ in 0..<iterations {
        for (index, stage) in stages.enumerated() {
            let cpuStart = Clock.nanoseconds(CLOCK_THREAD_CPUTIME_ID)
            wall[index].append(Clock.milliseconds(stage))
            cpu[index].append(Double(Clock.nanoseconds(CLOCK_THREAD_CPUTIME_ID) - cpuStart) / 1e6)
        }
    }
    return (cpu, wall)
}
