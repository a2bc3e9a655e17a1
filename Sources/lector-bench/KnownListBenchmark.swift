import Foundation
import Glibc
import LectorPipeline
import LectorSystem

/// Section `known` (issue 45): what a rule's known list costs per frame. A list of
/// 100,000 generated plates; a frame's readings are eight lines (plates read right, one
/// and two characters off, with look-alikes, and text that is no plate), each looked up
/// within `max_distance` 2 (the default is 1). The index's cost against the target, and
/// the scan of every entry it replaced, once, for the ratio.
struct KnownListBenchmark {
    let bench: Benchmark
    static let plates = 100_000
    static let maximumDistance = 2

    func run() {
        var random = SeededGenerator(seed: 45)
        let list = Self.plateList(count: Self.plates, random: &random)
        let built = MonotonicInstant.now()
        guard let known = try? KnownList(path: "generated", contents: list.joined(separator: "\n")) else {
            bench.report.note("known: the generated list was refused")
            return
        }
        bench.report.add(section: "known", item: "\(Self.plates) plates: list read and indexed",
                         value: "\(format(MonotonicInstant.now().milliseconds(since: built), 0)) ms")
        let frames = (0..<16).map { _ in Self.frameReadings(list, random: &random) }
        var next = 0
        let lookups = {
            for reading in frames[next % frames.count] { _ = known.lookup(reading, maxDistance: Self.maximumDistance) }
            next += 1
        }
        let samples = measureStages([lookups], iterations: bench.options.smoke ? 20 : 200).cpu[0]
        let median = samples.median
        bench.report.add(section: "known", item: "\(Self.plates) plates: lookups per frame (8 lines)",
                         value: "\(format(median, 3)) ms CPU (p99 \(format(samples.p99, 3)))", target: "< 5 ms",
                         status: Report.check(median < 5), numbers: [("cpu_median_ms", median), ("cpu_p99_ms", samples.p99)])
        let scanStart = Clock.nanoseconds(CLOCK_THREAD_CPUTIME_ID)
        for reading in frames[0] { _ = known.lookupByScan(reading, maxDistance: Self.maximumDistance) }
        let scan = Double(Clock.nanoseconds(CLOCK_THREAD_CPUTIME_ID) - scanStart) / 1e6
        bench.report.add(section: "known", item: "\(Self.plates) plates: scanning every entry instead",
                         value: "\(format(scan, 1)) ms CPU per frame (\(format(scan / max(median, 0.001), 0))x)",
                         numbers: [("scan_cpu_ms", scan)])
    }

    /// Distinct plates of 5-8 letters and digits, as a registry lists them.
    static func plateList(count: Int, random: inout SeededGenerator) -> [String] {
        let alphabet = Array("ABCDEFGHJKLMNPRSTUVWXYZ0123456789")
        var seen = Set<String>(), plates: [String] = []
        plates.reserveCapacity(count)
        while plates.count < count {
            let length = 5 + Int(random.next() % 4)
            let plate = String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            if seen.insert(LookAlike.folded(plate)).inserted { plates.append(plate) }
        }
        return plates
    }

    /// A frame's eight lines: two plates read right (one with a look-alike and spaces),
    /// two one character off, two two off, and two lines that are no plate.
    static func frameReadings(_ plates: [String], random: inout SeededGenerator) -> [String] {
        func pick() -> [Character] { Array(plates[Int(random.next() % UInt64(plates.count))]) }
        func off(_ edits: Int) -> String {
            var plate = pick()
            for _ in 0..<edits { plate[Int(random.next() % UInt64(plate.count))] = "X" }
            return String(plate)
        }
        let spaced = pick()
        return [String(pick()), String(spaced.prefix(2)) + " " + String(spaced.dropFirst(2)).replacingOccurrences(of: "0", with: "O"),
                off(1), off(1), off(2), off(2), "Heatlag and Colling", "Service 0800 123 456"]
    }
}
