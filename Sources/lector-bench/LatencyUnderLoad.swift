import Foundation
import LectorCapture
import LectorClient
import LectorImaging
import LectorLive
import LectorPipeline
import LectorProtocol
import LectorRecognition
import LectorSystem
import Synchronization

/// Section 4: capture→publish latency with a source at a fixed frame rate faster than
/// recognition. Three kinds of run:
/// - real: lectord's Camera (ReplaySource at N fps → LatestFrameMailbox → RecognitionLoop
///   with real Tesseract) for `--real-frames` results;
/// - stand-in: the library's ReplaySource and LatestFrameMailbox with a consumer that does
///   the real luma, orientation and JSON work but replaces Tesseract by a sleep drawn
///   from the recognition times measured in the recognition section (labelled), for
///   `--frames` captured frames;
/// - FIFO: the same stand-in behind an unbounded first-in-first-out queue instead of the
///   mailbox: what latest-frame-only prevents.
struct LatencyUnderLoad {
    let bench: Benchmark

    /// The latency frames: 1280x720 YUYV, about 70 ms of recognition at full size.
    static let frameName = "1280x720"

    func run() {
        // Smoke mode uses the small frames, to stay under a minute.
        guard let frames = bench.frameSet(bench.options.smoke ? "640x480" : Self.frameName) ?? bench.frames.last else { return }
        let directory = NSTemporaryDirectory() + "lector-bench-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rawPath = directory + "/frames.yuyv"
        var raw = Array(frames.buffer(.yuyv, noisy: true).bytes)
        raw += Array(frames.buffer(.yuyv, noisy: false).bytes)
        do {
            try Data(raw).write(to: URL(fileURLWithPath: rawPath))
        } catch {
            bench.report.note("cannot write the replay file: latency section skipped")
            return
        }
        var recognition = Samples()
        for fps in [30.0, 60.0] {
            let measured = realRun(path: rawPath, frames: frames, fps: fps)
            recognition = Samples(recognition.values + measured.values)
        }
        // The stand-in's durations: what real recognition of these frames took.
        var distribution = bench.recognitionSamples720
        if distribution.count < 5 { distribution = Samples(distribution.values + recognition.values) }
        if distribution.isEmpty { distribution = Samples([70]) }
        bench.report.note("stand-in recognizer: sleeps drawn from \(distribution.count) measured 720p recognitions (median \(format(distribution.median, 1)) ms, p99 \(format(distribution.p99, 1)) ms); all four stand-in runs ran at the same time (they mostly sleep)")
        standInRuns(path: rawPath, frames: frames, distribution: distribution)
    }

    // MARK: Real Tesseract

    final class LatencyLog: @unchecked Sendable {
        private let lock = NSLock()
        private var latency: [Double] = []
        private var recognition: [Double] = []
        private var sequences: [UInt32] = []
        let wanted: Int
        let done = DispatchSemaphore(value: 0)

        init(wanted: Int) { self.wanted = wanted }

        func record(latency value: Double, recognition time: Double, sequence: UInt32) {
            lock.lock()
            sequences.append(sequence)
            latency.append(value)
            recognition.append(time)
            let reached = latency.count == wanted
            lock.unlock()
            if reached { done.signal() }
        }

        var samples: (latency: Samples, recognition: Samples, sequences: [UInt32]) {
            lock.lock()
            defer { lock.unlock() }
            return (Samples(latency), Samples(recognition), sequences)
        }
    }

    private func realRun(path: String, frames: BenchFrameSet, fps: Double) -> Samples {
        let wanted = bench.options.realFrames
        var recognizer = RecognizerOptions()
        recognizer.layout = .tesseract  // Tesseract's own layout: what this section compares (the detector: section detector)
        recognizer.downscale = .none
        // Every frame read afresh: with the change gate on, the replay's two frames of one
        // scene settle and are then skipped as unchanged, and the wanted results would
        // take one refresh each.
        var live = LiveSettings()
        live.stack = nil
        live.gate = false
        let log = LatencyLog(wanted: wanted)
        let camera: Camera
        do {
            let source = try ReplaySource(name: "replay", options: ReplayOptions(
                path: path, fps: fps, loop: true, rawFormat: .yuyv, rawSize: (frames.width, frames.height)))
            camera = try Camera(source: source, recognizer: recognizer, orientation: OrientationSettings(), live: live,
                                logger: bench.logger) { publication in
                log.record(latency: MonotonicInstant.now().milliseconds(since: publication.text.captureTime),
                           recognition: publication.frame.recognizeMilliseconds, sequence: publication.text.sequence)
            }
        } catch {
            bench.report.note("real latency run at \(Int(fps)) fps could not start: \(error)")
            return Samples()
        }
        camera.start()
        log.done.wait()
        camera.stop()
        let counts = camera.counters.snapshot
        let (latency, recognition, sequences) = log.samples
        let interval = 1000 / fps
        let bound = recognition.p99 + interval + 5
        let dropRate = Double(counts.dropped) / Double(max(1, counts.captured))
        // Growth: results of the first and the last tenth of the captured frames.
        let tenth = max(1, counts.captured / 10)
        let pairs = zip(sequences, latency.values)
        let first = Samples(pairs.filter { Int($0.0) < tenth }.map(\.1))
        let last = Samples(pairs.filter { Int($0.0) >= counts.captured - tenth }.map(\.1))
        bench.report.add(
            section: "latency", item: "real Tesseract, \(Int(fps)) fps, latest-frame, \(latency.count) results",
            value: "p50 \(format(latency.median, 1)) ms, p99 \(format(latency.p99, 1)) ms (recognition p99 \(format(recognition.p99, 1)) ms), drop rate \(format(dropRate * 100, 1))% of \(counts.captured); first/last tenth p99 \(format(first.p99, 1))/\(format(last.p99, 1)) ms",
            target: "p99 ≤ \(format(bound, 1)) ms", status: Report.check(latency.p99 <= bound),
            numbers: [("p50_ms", latency.median), ("p99_ms", latency.p99), ("max_ms", latency.max),
                      ("recognition_p50_ms", recognition.median), ("recognition_p99_ms", recognition.p99),
                      ("bound_ms", bound), ("captured", Double(counts.captured)), ("dropped", Double(counts.dropped)),
                      ("drop_rate", dropRate), ("first_tenth_p99_ms", first.p99),
                      ("last_tenth_p99_ms", last.p99)])
        return recognition
    }

    // MARK: Stand-in recognizer

    /// An unbounded FIFO of frames: the design latest-frame-only replaces.
    final class FrameQueue: @unchecked Sendable {
        private let condition = NSCondition()
        private var frames: [Frame] = []
        private var head = 0
        private var closed = false
        private(set) var longest = 0

        func push(_ frame: Frame) {
            condition.lock()
            frames.append(frame)
            longest = max(longest, frames.count - head)
            condition.signal()
            condition.unlock()
        }

        func pop() -> Frame? {
            condition.lock()
            defer { condition.unlock() }
            while head == frames.count && !closed { condition.wait() }
            guard head < frames.count, !closed else { return nil }
            head += 1
            return frames[head - 1]
        }

        var waiting: Int {
            condition.lock()
            defer { condition.unlock() }
            return frames.count - head
        }

        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The recognizer thread of a stand-in run: real luma, orientation and JSON, a sleep
    /// for recognition.
    final class StandInConsumer: @unchecked Sendable {
        let durations: [Double]
        let text: RecognizedText
        private(set) var latency = Samples()
        /// The captured-frame sequence number of each latency sample.
        private(set) var sequences: [UInt32] = []
        private(set) var processed = 0
        private let extractor = LumaExtractor()
        private var luma = GrayImage(width: 0, height: 0)
        private var upright = GrayImage(width: 0, height: 0)

        init(durations: [Double], text: RecognizedText) {
            self.durations = durations
            self.text = text
        }

        func process(_ frame: Frame) {
            do {
                try extractor.extract(frame, into: &luma)
            } catch {
                frame.giveBack()
                return
            }
            frame.giveBack()
            let transform = OrientationTransform(orientation: .up, sourceWidth: luma.width, sourceHeight: luma.height)
            transform.apply(luma, into: &upright)
            let sleep = durations[processed % durations.count]
            Thread.sleep(forTimeInterval: sleep / 1000)
            let report = TextReport(device: "replay", sequence: frame.sequence, captureTime: frame.timestamp,
                                    unixTime: frame.timestamp.unixTime, transform: transform, text: text,
                                    recognizeMilliseconds: sleep)
            _ = report.message().bytes
            latency.append(MonotonicInstant.now().milliseconds(since: frame.timestamp))
            sequences.append(frame.sequence)
            processed += 1
        }
    }

    private struct StandInResult {
        var name: String
        var fps: Double
        var fifo: Bool
        var latency: Samples
        var sequences: [UInt32]
        var captured: Int
        var dropped: Int
        var leftInQueue: Int
    }

    private func standInRuns(path: String, frames: BenchFrameSet, distribution: Samples) {
        let captured = bench.options.standInFrames
        // The same sequence of durations for every run: the measured values, shuffled with a fixed seed.
        var generator = SeededGenerator(seed: 7)
        let durations = distribution.values.shuffled(using: &generator)
        let text = RecognizedText(blocks: [TextBlock(box: PixelBox(x: 100, y: 100, width: 800, height: 60), confidence: 0.9,
                                                     lines: [TextLine(box: PixelBox(x: 100, y: 100, width: 800, height: 60), confidence: 0.9,
                                                                      words: [TextWord(text: "Closed", box: PixelBox(x: 100, y: 100, width: 200, height: 60), confidence: 0.9)])])])
        let results = Mutex<[StandInResult]>([])
        let group = DispatchGroup()
        for fifo in [false, true] {
            for fps in [30.0, 60.0] {
                group.enter()
                Thread.detachNewThread {
                    let result = fifo
                        ? Self.fifoRun(frames: frames, fps: fps, captured: captured, durations: durations, text: text)
                        : Self.mailboxRun(path: path, frames: frames, fps: fps, captured: captured, durations: durations, text: text)
                    results.withLock { $0.append(result) }
                    group.leave()
                }
            }
        }
        group.wait()
        let recognitionP99 = distribution.p99
        for result in results.withLock({ $0 }).sorted(by: { ($0.fifo ? 1 : 0, $0.fps) < ($1.fifo ? 1 : 0, $1.fps) }) {
            let latency = result.latency
            // Growth: results of the first and the last thousand captured frames (a tenth of
            // the run when it is shorter than 10,000 frames).
            let block = min(1000, max(1, result.captured / 10))
            let pairs = zip(result.sequences, latency.values)
            let first = Samples(pairs.filter { Int($0.0) < block }.map(\.1))
            let last = Samples(pairs.filter { Int($0.0) >= result.captured - block }.map(\.1))
            let bound = recognitionP99 + 1000 / result.fps + 5
            let dropRate = Double(result.dropped) / Double(max(1, result.captured))
            let grew = last.p99 > first.p99 * 1.1 + 2
            let numbers: [(String, Double)] = [
                ("p50_ms", latency.median), ("p99_ms", latency.p99), ("max_ms", latency.max), ("bound_ms", bound),
                ("captured", Double(result.captured)), ("published", Double(latency.count)), ("dropped", Double(result.dropped)),
                ("drop_rate", dropRate), ("first_block_p99_ms", first.p99), ("last_block_p99_ms", last.p99),
                ("block_frames", Double(block)), ("first_block_results", Double(first.count)), ("last_block_results", Double(last.count)), ("left_in_queue", Double(result.leftInQueue)),
            ]
            let summary = "p50 \(format(latency.median, 1)) ms, p99 \(format(latency.p99, 1)) ms, drop rate \(format(dropRate * 100, 1))% of \(result.captured) captured; results of the first/last \(block) frames p99 \(format(first.p99, 1)) ms/\(last.isEmpty ? "never recognized" : format(last.p99, 1) + " ms")"
            if result.fifo {
                bench.report.add(section: "latency", item: "\(result.name) (no target: shows why)",
                                 value: summary + "; \(result.leftInQueue) frames still queued at the end",
                                 numbers: numbers)
            } else {
                bench.report.add(section: "latency", item: result.name, value: summary,
                                 target: "p99 ≤ \(format(bound, 1)) ms, no growth", status: Report.check(latency.p99 <= bound && !grew),
                                 numbers: numbers)
            }
        }
    }

    private static func mailboxRun(path: String, frames: BenchFrameSet, fps: Double, captured: Int, durations: [Double],
                                   text: RecognizedText) -> StandInResult {
        let name = "stand-in recognizer, \(Int(fps)) fps, latest-frame"
        let mailbox = LatestFrameMailbox()
        let counters = FrameCounters()
        let stop = StopSignal()
        let consumer = StandInConsumer(durations: durations, text: text)
        // A sink that counts, and raises the stop once `captured` frames came in.
        let sink = CameraFrameSink(mailbox: mailbox, counters: counters)
        let source: ReplaySource
        do {
            source = try ReplaySource(name: "replay", options: ReplayOptions(
                path: path, fps: fps, loop: true, rawFormat: .yuyv, rawSize: (frames.width, frames.height)))
        } catch {
            return StandInResult(name: name, fps: fps, fifo: false, latency: Samples(), sequences: [], captured: 0, dropped: 0, leftInQueue: 0)
        }
        let ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while let frame = mailbox.take() {
                consumer.process(frame)
                counters.countRecognized()
            }
            ended.signal()
        }
        let watcher = Thread {
            while !stop.isRaised {
                if counters.snapshot.captured >= captured { stop.raise() }
                _ = stop.wait(seconds: 0.005)
            }
        }
        watcher.start()
        try? source.run(into: sink, stop: stop)
        stop.raise()
        // Let the recognizer finish the frame it has; a frame still waiting is dropped.
        _ = mailbox.waitUntilEmpty()
        if mailbox.close() { counters.countDropped() }
        ended.wait()
        let counts = counters.snapshot
        return StandInResult(name: name, fps: fps, fifo: false, latency: consumer.latency, sequences: consumer.sequences,
                             captured: counts.captured,
                             dropped: counts.dropped, leftInQueue: 0)
    }

    private static func fifoRun(frames: BenchFrameSet, fps: Double, captured: Int, durations: [Double],
                                text: RecognizedText) -> StandInResult {
        let queue = FrameQueue()
        let consumer = StandInConsumer(durations: durations, text: text)
        let ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while let frame = queue.pop() { consumer.process(frame) }
            ended.signal()
        }
        // The same pacing as ReplaySource: an absolute schedule, one frame per interval.
        let buffers = [frames.buffer(.yuyv, noisy: true), frames.buffer(.yuyv, noisy: false)]
        var next = MonotonicInstant.now()
        for sequence in 0..<captured {
            let wait = -MonotonicInstant.now().milliseconds(since: next) / 1000
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            next = next.adding(milliseconds: 1000 / fps)
            queue.push(Frame(format: .yuyv, width: frames.width, height: frames.height, sequence: UInt32(sequence),
                             timestamp: .now(), buffer: buffers[sequence % 2]))
        }
        let left = queue.waiting
        queue.close()
        ended.wait()
        return StandInResult(name: "stand-in recognizer, \(Int(fps)) fps, FIFO queue", fps: fps, fifo: true,
                             latency: consumer.latency, sequences: consumer.sequences, captured: captured, dropped: 0,
                             leftInQueue: left)
    }
}
