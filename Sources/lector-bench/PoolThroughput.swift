import CBenchReference
import Foundation
import Glibc
import LectorCapture
import LectorLive
import LectorPipeline
import LectorProtocol
import LectorRecognition
import LectorSystem

/// Section `pool` (issue 15): the machine's ceiling first (1, 2, … C-API loops at once),
/// then lectord's Camera (ReplaySource at a frame rate faster than recognition →
/// LatestFrameMailbox → RecognitionLoop) with 1, 2, …
/// recognizers on the same frames in one run: results per second, capture→publish
/// latency against one recognition p99 + one frame interval + 5 ms, capture times of
/// published results strictly increasing; then lectord's resident memory with 1, 2, …
/// recognizers, measured from outside (the memory each extra recognizer costs).
/// Live text is off here (`--stack off --gate off`): the section measures recognition.
struct PoolThroughput {
    let bench: Benchmark

    /// 2 recognizers against 1 on a 2-core machine.
    static let speedupTarget = 1.7
    static let memoryTargetMegabytes = 40.0
    /// The replay's rate: faster than recognition at every pool size measured here.
    static let fps = 30.0

    /// Pool sizes: 1 up to the number of cores (at least 2, at most 4).
    private var sizes: [Int] { Array(1...max(2, min(4, ProcessInfo.processInfo.activeProcessorCount))) }

    /// Pool sizes take turns, each measured in `rounds` parts (1, 2, 1, 2 …), so a change
    /// in what else the machine does falls on all sizes alike.
    static let rounds = 2

    private struct Run {
        var results = 0
        var seconds = 0.0
        var latency = Samples()
        var recognition = Samples()
        var increasing = true
        var captured = 0, recognized = 0, dropped = 0
        var perSecond: Double { Double(results) / max(seconds, 1e-9) }

        /// Adds another part of the same pool size's measurement.
        mutating func absorb(_ part: Run) {
            results += part.results
            seconds += part.seconds
            part.latency.values.forEach { latency.append($0) }
            part.recognition.values.forEach { recognition.append($0) }
            increasing = increasing && part.increasing
            captured += part.captured
            recognized += part.recognized
            dropped += part.dropped
        }
    }

    /// What a publish callback records: only results in the measuring window count.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var latency: [Double] = []
        private var recognition: [Double] = []
        private var lastCapture: MonotonicInstant?
        private var increasing = true
        private var windowStart: MonotonicInstant?
        private var windowEnd: MonotonicInstant?

        func record(_ publication: Publication) {
            let now = MonotonicInstant.now()
            lock.lock()
            defer { lock.unlock() }
            if let last = lastCapture, publication.text.captureTime <= last { increasing = false }
            lastCapture = publication.text.captureTime
            guard let start = windowStart, now >= start, windowEnd.map({ now < $0 }) ?? true else { return }
            latency.append(now.milliseconds(since: publication.text.captureTime))
            recognition.append(publication.frame.recognizeMilliseconds)
        }

        func open(at start: MonotonicInstant) { lock.withLock { windowStart = start } }
        func close(at end: MonotonicInstant) { lock.withLock { windowEnd = end } }

        var measured: (latency: Samples, recognition: Samples, increasing: Bool) {
            lock.withLock { (Samples(latency), Samples(recognition), increasing) }
        }
    }

    func run() {
        guard let frames = bench.frameSet(bench.options.smoke ? "640x480" : "1280x720") ?? bench.frames.last else { return }
        let directory = NSTemporaryDirectory() + "lector-bench-pool-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rawPath = directory + "/frames.yuyv"
        let raw = Array(frames.buffer(.yuyv, noisy: true).bytes) + Array(frames.buffer(.yuyv, noisy: false).bytes)
        do {
            try Data(raw).write(to: URL(fileURLWithPath: rawPath))
        } catch {
            bench.report.note("recognizer pool: cannot write the replay file: \(error)")
            return
        }
        let seconds = bench.options.smoke ? 4.0 : 20.0
        bench.report.note("recognizer pool: lectord's Camera replaying \(frames.name) YUYV frames (noisy and clean alternately) at \(Int(Self.fps)) fps, full size, live text off; \(format(seconds, 0)) s measured per pool size (in \(Self.rounds) turns, each after 3 s of warm-up), pool sizes in one run")
        let ceiling = machineCeiling(frames: frames, seconds: bench.options.smoke ? 2 : 10)
        var runs: [Int: Run] = [:]
        for _ in 0..<Self.rounds {
            for count in sizes {
                guard let part = measure(path: rawPath, frames: frames, recognizers: count, seconds: seconds / Double(Self.rounds))
                else { continue }
                runs[count, default: Run()].absorb(part)
            }
        }
        for count in sizes {
            guard let run = runs[count] else { continue }
            let interval = 1000 / Self.fps
            let bound = run.recognition.p99 + interval + 5
            let single = runs[1]
            let speedup = single.map { run.perSecond / max($0.perSecond, 1e-9) } ?? 1
            var target = "", status = Report.Status.info
            let ofCeiling = ceiling[count].map { "; the machine's ceiling \(format($0, 2))×, so \(format(speedup / $0 * 100, 0))% of it" } ?? ""
            if count == 2 {
                target = "≥ \(format(Self.speedupTarget, 1))× one recognizer; latency p99 ≤ recognition p99 + 1 frame + 5 ms; capture times increasing"
                status = Report.check(speedup >= Self.speedupTarget && run.latency.p99 <= bound && run.increasing)
            } else {
                target = "latency p99 ≤ recognition p99 + 1 frame + 5 ms; capture times increasing"
                status = Report.check(run.latency.p99 <= bound && run.increasing)
            }
            bench.report.add(
                section: "pool",
                item: "pool of \(count) recognizer\(count == 1 ? "" : "s"), \(frames.name) at \(Int(Self.fps)) fps",
                value: "\(format(run.perSecond, 2)) results/s (\(format(speedup, 2))× one\(ofCeiling)); latency p50 \(format(run.latency.median, 1)) ms, p99 \(format(run.latency.p99, 1)) ms (bound \(format(bound, 1)): recognition p99 \(format(run.recognition.p99, 1)) ms\(single.map { ", one recognizer's \(format($0.recognition.p99, 1)) ms" } ?? "")); capture times \(run.increasing ? "strictly increasing" : "NOT increasing"); captured \(run.captured), recognized \(run.recognized), dropped \(run.dropped)",
                target: target, status: status,
                numbers: [("recognizers", Double(count)), ("results_per_s", run.perSecond), ("speedup", speedup),
                          ("latency_p50_ms", run.latency.median), ("latency_p99_ms", run.latency.p99),
                          ("recognition_p50_ms", run.recognition.median), ("recognition_p99_ms", run.recognition.p99),
                          ("bound_ms", bound), ("increasing", run.increasing ? 1 : 0),
                          ("captured", Double(run.captured)), ("recognized", Double(run.recognized)),
                          ("dropped", Double(run.dropped))])
        }
        memory(frames: frames, directory: directory)
    }

    /// What this machine allows: 1, 2, … threads each running the C reference loop
    /// (Tesseract's C API, one engine per thread, no Lector code) on the same frames at
    /// once, for `seconds`. Returns each thread count's recognitions per second against
    /// one thread's: the speed-up no recognizer pool can beat here (shared cores, caches
    /// and memory bandwidth; a cloud vCPU may be one hyperthread of a core).
    private func machineCeiling(frames: BenchFrameSet, seconds: Double) -> [Int: Double] {
        var recognitions: [Int: Int] = [:], elapsed: [Int: Double] = [:]
        for _ in 0..<Self.rounds {
            for count in sizes {
                guard let part = ceilingPart(frames: frames, threads: count, seconds: seconds / Double(Self.rounds)) else { return [:] }
                recognitions[count, default: 0] += part.recognitions
                elapsed[count, default: 0] += part.seconds
            }
        }
        var perSecond: [Int: Double] = [:]
        for count in sizes { perSecond[count] = Double(recognitions[count] ?? 0) / max(elapsed[count] ?? 0, 1e-9) }
        guard let one = perSecond[1] else { return [:] }
        var ratios: [Int: Double] = [:]
        for count in sizes {
            guard let rate = perSecond[count] else { continue }
            ratios[count] = rate / one
            bench.report.add(section: "pool", item: "machine ceiling: \(count) C-API loop\(count == 1 ? "" : "s") at once, \(frames.name)",
                             value: "\(format(rate, 2)) recognitions/s (\(format(rate / one, 2))× one thread): the most any pool can get here",
                             numbers: [("threads", Double(count)), ("recognitions_per_s", rate), ("speedup", rate / one)])
        }
        return ratios
    }

    /// `threads` C reference loops at once for `seconds`: recognitions done, seconds taken.
    private func ceilingPart(frames: BenchFrameSet, threads count: Int, seconds: Double) -> (recognitions: Int, seconds: Double)? {
        final class Counter: @unchecked Sendable {
            let lock = NSLock()
            var recognitions = 0
        }
        let references = (0..<count).compactMap { _ in bench_reference_create("eng", nil, 3) }
        defer { references.forEach { bench_reference_destroy($0) } }
        guard references.count == count else {
            bench.report.note("machine ceiling: Tesseract did not start")
            return nil
        }
        let counter = Counter()
        let group = DispatchGroup()
        let images = [frames.noisy, frames.clean]
        let start = bench_reference_now_ns(), end = start + Int64(seconds * 1e9)
        for (index, reference) in references.enumerated() {
            group.enter()
            nonisolated(unsafe) let reference = reference
            Thread.detachNewThread {
                var result = bench_reference_result()
                var done = 0, turn = index
                while bench_reference_now_ns() < end {
                    let image = images[turn % images.count]
                    turn += 1
                    image.pixels.withUnsafeBufferPointer { pixels in
                        _ = bench_reference_recognize(reference, pixels.baseAddress, Int32(image.width), Int32(image.height),
                                                      Int32(image.width), 300, nil, 0, &result)
                    }
                    done += 1
                }
                counter.lock.withLock { counter.recognitions += done }
                group.leave()
            }
        }
        group.wait()
        return (counter.recognitions, Double(bench_reference_now_ns() - start) / 1e9)
    }

    private func measure(path: String, frames: BenchFrameSet, recognizers: Int, seconds: Double) -> Run? {
        var options = RecognizerOptions()
        options.layout = .tesseract  // Tesseract's own layout: what this section compares (the detector: section detector)
        options.downscale = .none
        var live = LiveSettings()
        live.stack = nil
        live.gate = false
        let log = Log()
        let camera: Camera
        do {
            let source = try ReplaySource(name: "replay", options: ReplayOptions(
                path: path, fps: Self.fps, loop: true, rawFormat: .yuyv, rawSize: (frames.width, frames.height)))
            camera = try Camera(source: source, recognizer: options, recognizers: recognizers, orientation: OrientationSettings(),
                                live: live, logger: bench.logger) { log.record($0) }
        } catch {
            bench.report.note("recognizer pool of \(recognizers): could not start: \(error)")
            return nil
        }
        camera.start()
        Thread.sleep(forTimeInterval: 3)
        let start = MonotonicInstant.now()
        log.open(at: start)
        Thread.sleep(forTimeInterval: seconds)
        let end = MonotonicInstant.now()
        log.close(at: end)
        camera.stop()
        let measured = log.measured
        var run = Run()
        run.results = measured.latency.count
        run.seconds = end.milliseconds(since: start) / 1000
        run.latency = measured.latency
        run.recognition = measured.recognition
        run.increasing = measured.increasing
        let counters = camera.counters.snapshot
        (run.captured, run.recognized, run.dropped) = (counters.captured, counters.recognized, counters.dropped)
        return run
    }

    /// lectord's RSS with 1, 2, … recognizers after each has recognized a few frames.
    private func memory(frames: BenchFrameSet, directory: String) {
        let executable = Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("lectord").path ?? ""
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            bench.report.note("recognizer pool memory: lectord is not built next to lector-bench: skipped")
            return
        }
        let images = directory + "/images"
        do {
            try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
            try BenchFrameSet.writePGM(frames.noisy, to: images + "/a-noisy.pgm")
            try BenchFrameSet.writePGM(frames.clean, to: images + "/b-clean.pgm")
        } catch {
            bench.report.note("recognizer pool memory: cannot write frames: \(error)")
            return
        }
        var resident: [Int: Double] = [:]
        for count in sizes {
            // Every recognizer reads several frames before the sample.
            let wanted = 8 * count
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--replay", images, "--fps", "50", "--loop", "--stdout", "--stack", "off", "--gate", "off", "--layout", "tesseract",
                                 "--downscale", "1", "--recognizers", String(count), "--max-frames", String(wanted + 2)]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            do { try process.run() } catch {
                bench.report.note("recognizer pool memory: cannot start lectord: \(error)")
                return
            }
            var published = 0
            var pending = Data()
            reading: while true {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 10) {
                    let line = pending[pending.startIndex..<newline]
                    pending.removeSubrange(pending.startIndex...newline)
                    guard line.starts(with: Data("{\"class\":\"FRAME\"".utf8)) else { continue }
                    published += 1
                    if published == wanted {
                        resident[count] = MemoryBenchmark.residentMegabytes(pid: process.processIdentifier)
                        break reading
                    }
                }
            }
            process.terminate()
            process.waitUntilExit()
        }
        guard let one = resident[1] else {
            bench.report.note("recognizer pool memory: lectord published nothing")
            return
        }
        for count in sizes.dropFirst() {
            guard let megabytes = resident[count] else { continue }
            let perExtra = (megabytes - one) / Double(count - 1)
            bench.report.add(section: "pool", item: "lectord RSS with \(count) recognizers (per extra recognizer)",
                             value: "\(format(megabytes, 1)) MB against \(format(one, 1)) MB with one: \(format(perExtra, 1)) MB per extra recognizer",
                             target: "≤ \(Int(Self.memoryTargetMegabytes)) MB per extra recognizer",
                             status: Report.check(perExtra <= Self.memoryTargetMegabytes),
                             numbers: [("recognizers", Double(count)), ("rss_mb", megabytes), ("rss_one_mb", one),
                                       ("per_extra_mb", perExtra)])
        }
    }
}
