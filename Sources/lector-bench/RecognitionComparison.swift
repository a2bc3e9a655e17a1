import CBenchReference
import LectorCapture
import LectorClient
import LectorEngine
import LectorImaging
import LectorPipeline
import LectorProtocol
import LectorRecognition
import LectorSystem
import Synchronization

/// Sections 1-3 for recognition: Tesseract's share of a frame, Lector's overhead ratio
/// per pixel format, and Lector's pipeline against a minimal C loop on the same frames.
///
/// Every round runs every variant once on the same frame, in a rotating order, so
/// machine noise falls on all variants alike.
struct RecognitionComparison {
    let bench: Benchmark

    /// The last publication of a ``RecognitionLoop``.
    final class PublicationBox: @unchecked Sendable {
        private let lock = Mutex<Publication?>(nil)
        var value: Publication? { lock.withLock { $0 } }
        func set(_ publication: Publication) { lock.withLock { $0 = publication } }
    }

    /// One of Lector's variants: a real RecognitionLoop fed frames of one format.
    final class LectorVariant {
        let name: String
        let format: PixelFormat
        let downscale: Downscale
        private(set) var loop: RecognitionLoop
        let box = PublicationBox()
        private let logger: Logger
        var total = Samples(), recognize = Samples(), read = Samples(), overhead = Samples(), reported = Samples()
        /// Thread CPU time: per frame, in Tesseract's SetImage + Recognize, and the rest.
        var cpuTotal = Samples(), cpuRecognize = Samples(), cpuOverhead = Samples()
        var halved = false
        var words: [String] = []

        init(format: PixelFormat, downscale: Downscale, logger: Logger) throws(RecognitionError) {
            self.format = format
            self.downscale = downscale
            name = "Lector \(format.fourcc), downscale \(downscale == .none ? "none" : downscale.description)"
            self.logger = logger
            loop = try Self.makeLoop(downscale: downscale, box: box, logger: logger)
        }

        private static func makeLoop(downscale: Downscale, box: PublicationBox, logger: Logger) throws(RecognitionError) -> RecognitionLoop {
            var options = RecognizerOptions()
            options.layout = .tesseract  // Tesseract's own layout: what this section compares (the detector: section detector)
            options.downscale = downscale
            // Deskew off: the overhead ratio and the C-loop comparison keep measuring what they
            // did before issue 17 (the C loop levels nothing); deskew's own cost is in the
            // stages section (its estimate, once per scene with live text, and its rotation).
            options.deskew = false
            return try RecognitionLoop(device: "/dev/video0", options: options, mailbox: LatestFrameMailbox(),
                                       counters: FrameCounters(), orientation: OrientationControl(), logger: logger) {
                box.set($0)
            }
        }

        /// A new Tesseract instance: instances differ by a few percent in speed on the
        /// same pixels (memory placement), so the rounds are spread over several.
        func rebuild() throws(RecognitionError) { loop = try Self.makeLoop(downscale: downscale, box: box, logger: logger) }

        func step(_ frames: BenchFrameSet, record: Bool) {
            let frame = frames.frame(format)
            let cpuStart = RecognitionTimings.threadCPUMilliseconds()
            let milliseconds = Clock.milliseconds { loop.process(frame) }
            let cpu = RecognitionTimings.threadCPUMilliseconds() - cpuStart
            guard record, let publication = box.value else { return }
            let timings = loop.lastRecognitionTimings
            // Tesseract runs on the recognizer's engine thread: this thread's CPU time is
            // Lector's work around it, plus the engine thread's own beyond Recognize.
            cpuTotal.append(cpu + timings.engineCPUMilliseconds)
            cpuRecognize.append(timings.recognizeCPUMilliseconds)
            cpuOverhead.append(cpu + timings.engineCPUMilliseconds - timings.recognizeCPUMilliseconds)
            halved = timings.width < frames.width
            total.append(milliseconds)
            recognize.append(timings.recognizeMilliseconds)
            read.append(timings.readMilliseconds)
            overhead.append(milliseconds - timings.recognizeMilliseconds)
            reported.append(publication.frame.recognizeMilliseconds)
            words = publication.text.text.words.map(\.text)
        }
    }

    /// The C reference loop (CBenchReference): gray or YUYV in, words out.
    final class CVariant {
        let name: String
        let yuyv: Bool
        private(set) var reference: OpaquePointer
        var total = Samples(), recognize = Samples(), walk = Samples(), cpuTotal = Samples(), cpuRecognize = Samples()
        var words: [String] = []
        private var gray: [UInt8] = []
        private var text = [CChar](repeating: 0, count: 1 << 16)

        init?(yuyv: Bool) {
            guard let reference = bench_reference_create("eng", nil, 3) else { return nil }
            self.reference = reference
            self.yuyv = yuyv
            name = yuyv ? "C loop YUYV (Y pick + recognize)" : "C loop gray"
        }

        deinit { bench_reference_destroy(reference) }

        /// A new Tesseract instance (see ``LectorVariant/rebuild()``).
        func rebuild() -> Bool {
            guard let fresh = bench_reference_create("eng", nil, 3) else { return false }
            bench_reference_destroy(reference)
            reference = fresh
            return true
        }

        func step(_ frames: BenchFrameSet, record: Bool) {
            var result = bench_reference_result()
            let cpuStart = bench_reference_thread_cpu_ns()
            let width = Int32(frames.width), height = Int32(frames.height)
            let milliseconds: Double
            if yuyv {
                let source = frames.buffer(.yuyv)
                if gray.count != frames.width * frames.height { gray = [UInt8](repeating: 0, count: frames.width * frames.height) }
                milliseconds = Clock.milliseconds {
                    gray.withUnsafeMutableBufferPointer { out in
                        bench_reference_yuyv_to_y(source.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), width, height,
                                                  width * 2, out.baseAddress)
                        _ = bench_reference_recognize(reference, out.baseAddress, width, height, width, 300, &text, text.count, &result)
                    }
                }
            } else {
                let source = frames.buffer(.grey)
                milliseconds = Clock.milliseconds {
                    _ = bench_reference_recognize(reference, source.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                  width, height, width, 300, &text, text.count, &result)
                }
            }
            let cpu = Double(bench_reference_thread_cpu_ns() - cpuStart) / 1e6
            guard record else { return }
            cpuTotal.append(cpu)
            cpuRecognize.append(Double(result.recognize_cpu_ns) / 1e6)
            total.append(milliseconds)
            recognize.append(Double(result.recognize_ns) / 1e6)
            walk.append(Double(result.walk_ns) / 1e6)
            words = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .split(separator: " ").map(String.init)
        }
    }

    func run() {
        // Smoke mode: the smallest size only, to stay under a minute.
        for frames in bench.options.smoke ? Array(bench.frames.prefix(1)) : bench.frames {
            measure(frames)
        }
    }

    /// Runs every variant on `frames` for the configured rounds and reports the C loop's
    /// figures, each Lector variant's overhead ratio, and Lector against the C loop.
    private func measure(_ frames: BenchFrameSet) {
        let report = bench.report
        guard let cGray = CVariant(yuyv: false), let cYUYV = CVariant(yuyv: true) else {
            report.note("the C reference could not load Tesseract's eng model: recognition section skipped")
            return
        }
        var lector: [LectorVariant] = []
        do {
            for downscale in [Downscale.none, .auto] {
                for format in [PixelFormat.grey, .yuyv, .nv12, .mjpeg] {
                    lector.append(try LectorVariant(format: format, downscale: downscale, logger: bench.logger))
                }
            }
        } catch {
            report.note("Lector's recognizer failed to start (\(error)): recognition section skipped")
            return
        }
        guard runRounds(frames, c: [cGray, cYUYV], lector: lector) else { return }
        reportCLoop(cGray, frames: frames)
        if frames.name == "1280x720" {
            bench.recognitionSamples720 = lector.first { $0.format == .yuyv && $0.downscale == .none }?.reported ?? Samples()
            bench.recognitionCPU720 = lector.first { $0.format == .yuyv && $0.downscale == .none }?.cpuRecognize ?? Samples()
        }
        for variant in lector { reportOverhead(of: variant, frames: frames) }
        for (c, pixelFormat) in [(cGray, PixelFormat.grey), (cYUYV, .yuyv)] {
            guard let swift = lector.first(where: { $0.format == pixelFormat && $0.downscale == .none }) else { continue }
            reportThroughput(swift, against: c, format: pixelFormat, frames: frames)
        }
    }

    /// Every round runs every variant once, in a rotating order; every few rounds each
    /// gets a new Tesseract instance and an unrecorded warm-up step.
    /// - Returns: false when a variant could not be rebuilt (the section is not reported).
    private func runRounds(_ frames: BenchFrameSet, c: [CVariant], lector: [LectorVariant]) -> Bool {
        var steps: [(Bool) -> Void] = c.map { variant in { variant.step(frames, record: $0) } }
        steps += lector.map { variant in { variant.step(frames, record: $0) } }
        let rounds = bench.options.rounds
        // Every `generation` rounds each variant gets a new Tesseract instance, so that no
        // variant keeps a lucky or unlucky one.
        let generation = max(1, min(5, rounds))
        for round in 0..<rounds {
            if round % generation == 0 {
                if round > 0 {
                    guard c.allSatisfy({ $0.rebuild() }) else { return false }
                    do { for variant in lector { try variant.rebuild() } } catch { return false }
                }
                // One step of each, unrecorded: Tesseract warms up, auto mode sees the text height.
                for step in steps { step(false) }
                for variant in lector where variant.downscale == .auto { variant.step(frames, record: false) }
            }
            for offset in 0..<steps.count { steps[(round + offset) % steps.count](true) }
        }
        return true
    }

    /// The C loop's Tesseract time and word walk.
    private func reportCLoop(_ cGray: CVariant, frames: BenchFrameSet) {
        bench.report.add(section: "recognition", item: "\(frames.name) C loop: SetImage+Recognize | word walk",
                         value: "\(format(cGray.cpuRecognize.median, 1)) ms CPU (\(format(cGray.recognize.median, 1)) ms wall) | \(format(cGray.walk.median, 3)) ms; median of \(bench.options.rounds)",
                         numbers: [("recognize_cpu_median_ms", cGray.cpuRecognize.median), ("recognize_cpu_p99_ms", cGray.cpuRecognize.p99),
                                   ("recognize_wall_median_ms", cGray.recognize.median), ("recognize_wall_p99_ms", cGray.recognize.p99),
                                   ("walk_median_ms", cGray.walk.median), ("frame_wall_mean_ms", cGray.total.mean),
                                   ("frame_cpu_mean_ms", cGray.cpuTotal.mean), ("word_recall", frames.wordRecall(cGray.words))])
    }

    /// One Lector variant's overhead ratio (its CPU outside Tesseract / Tesseract's),
    /// judged for the shipped default (downscale auto).
    private func reportOverhead(of variant: LectorVariant, frames: BenchFrameSet) {
        let report = bench.report
        let name = frames.name
        // Judged on thread CPU time: on a shared machine wall time also counts the
        // moments other processes had the CPU. Wall time is shown beside it.
        let ratio = variant.cpuOverhead.mean / variant.cpuRecognize.mean
        let wallRatio = variant.overhead.mean / variant.recognize.mean
        let target: Double? = switch variant.format {
        case .mjpeg: name == "1920x1080" ? 0.10 : nil
        default: 0.03
        }
        // The targets apply to the shipped default (downscale auto); full size is shown beside it.
        let status: Report.Status = if let target, variant.downscale == .auto { Report.check(ratio <= target) } else { .info }
        report.add(section: "overhead", item: "\(name) \(variant.name)\(variant.halved ? " (halved)" : "")",
                   value: "ratio \(format(ratio, 4)) = \(format(variant.cpuOverhead.mean, 2)) / \(format(variant.cpuRecognize.mean, 1)) ms CPU (wall: \(format(wallRatio, 4))); walk+tree \(format(variant.read.median, 3)) ms; recall \(format(frames.wordRecall(variant.words), 2))",
                   target: target.map { "≤ \(format($0, 2))" } ?? "", status: status,
                   numbers: [("overhead_ratio_cpu", ratio), ("overhead_ratio_wall", wallRatio),
                             ("overhead_cpu_mean_ms", variant.cpuOverhead.mean), ("recognize_cpu_mean_ms", variant.cpuRecognize.mean),
                             ("overhead_wall_mean_ms", variant.overhead.mean), ("overhead_wall_median_ms", variant.overhead.median),
                             ("recognize_wall_mean_ms", variant.recognize.mean), ("read_median_ms", variant.read.median),
                             ("frame_wall_mean_ms", variant.total.mean), ("frame_cpu_mean_ms", variant.cpuTotal.mean),
                             ("word_recall", frames.wordRecall(variant.words)), ("halved", variant.halved ? 1 : 0)])
    }

    /// Swift against C: frames per second through each, the same pixels to Tesseract (`format`, full size).
    ///
    /// Measured directly, the ratio carries Tesseract's own run-to-run spread (a few
    /// percent between instances and frames, on identical pixels), as large as the 3%
    /// being judged. So it is also computed from the parts: both call the same
    /// SetImage + Recognize on the same pixels (checked: same words), whose pooled
    /// mean R is the same work for both; they differ only in what is around it.
    /// Judged: the parts-based ratio ≥ 0.97, and the direct ratio's 95% interval
    /// reaching 0.97.
    private func reportThroughput(_ swift: LectorVariant, against c: CVariant, format pixelFormat: PixelFormat, frames: BenchFrameSet) {
        let report = bench.report
        let name = frames.name
        let direct = c.cpuTotal.mean / swift.cpuTotal.mean
        let wallRatio = c.total.mean / swift.total.mean
        let paired = Samples(zip(c.cpuTotal.values, swift.cpuTotal.values).map { $0 / $1 })
        let spread = paired.standardDeviation / Double(max(1, paired.count)).squareRoot() * 1.96
        let pooled = Samples(c.cpuRecognize.values + swift.cpuRecognize.values).mean
        let cOutside = c.cpuTotal.mean - c.cpuRecognize.mean
        let lectorOutside = swift.cpuOverhead.mean
        let parts = (pooled + cOutside) / (pooled + lectorOutside)
        let same = swift.words == c.words
        let met = parts >= 0.97 && paired.mean + spread >= 0.97
        report.add(section: "swift vs C", item: "\(name) \(pixelFormat.fourcc): Lector throughput / C loop's",
                   value: "\(format(parts, 3)) from the parts (outside Tesseract: C \(format(cOutside, 2)) ms, Lector \(format(lectorOutside, 2)) ms; Recognize \(format(pooled, 1)) ms CPU); direct \(format(direct, 3)) by CPU time, paired \(format(paired.mean, 3)) ± \(format(spread, 3)), wall \(format(wallRatio, 3)); same words: \(same ? "yes" : "no")",
                   target: "≥ 0.97", status: Report.check(met),
                   numbers: [("throughput_ratio_parts", parts), ("throughput_ratio_cpu", direct), ("throughput_ratio_wall", wallRatio),
                             ("paired_ratio_mean", paired.mean), ("paired_ratio_ci95", spread),
                             ("c_outside_cpu_ms", cOutside), ("lector_outside_cpu_ms", lectorOutside), ("recognize_cpu_pooled_ms", pooled),
                             ("c_frame_cpu_mean_ms", c.cpuTotal.mean), ("lector_frame_cpu_mean_ms", swift.cpuTotal.mean),
                             ("c_frame_wall_mean_ms", c.total.mean), ("lector_frame_wall_mean_ms", swift.total.mean),
                             ("same_words", same ? 1 : 0)])
    }
}
