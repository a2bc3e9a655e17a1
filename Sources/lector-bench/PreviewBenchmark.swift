import Glibc
import LectorImaging
import LectorProtocol
import LectorSystem

/// Section 8 (issue 13): what a colour preview (lector-http's live view, SNAPSHOT with
/// `color`) costs lectord. Without a preview each captured frame costs one atomic load
/// (is a preview wanted?); with one, each captured frame is copied as delivered, and
/// each preview frame asked for is encoded (YUYV and NV12 to RGB to JPEG; MJPEG is
/// passed through). The share of the overhead ratio is judged at 1280x720 YUYV against
/// the recognition section's per-frame recognition time, with a preview at lector-http's
/// default 5 frames per second.
struct PreviewBenchmark {
    let bench: Benchmark
    /// lector-http's default `--preview-fps`.
    static let previewFramesPerSecond = 5.0

    func run() {
        for frames in bench.frames { measure(frames) }
    }

    private func measure(_ frames: BenchFrameSet) {
        let demand = ColorPreviewDemand()
        let yuyv = frames.frame(.yuyv), mjpeg = frames.frame(.mjpeg)
        let keptYUYV = CapturedFrame(yuyv)
        var wanted = false
        let stages: [(String, () -> Void)] = [
            ("preview off: is a preview wanted? (per captured frame)", { wanted = demand.isWanted }),
            ("preview on: keep the YUYV frame as captured (copy)", { _ = CapturedFrame(yuyv) }),
            ("preview on: keep the MJPEG frame as captured (copy)", { _ = CapturedFrame(mjpeg) }),
            ("preview on: colour JPEG of the YUYV frame (per preview frame)", {
                _ = ColorPreviewEncoder.encode(keptYUYV, maximumWidth: nil)
            }),
        ]
        // The encode takes milliseconds: fewer rounds.
        let samples = measureStages(stages.map(\.1), iterations: max(5, bench.options.stageIterations / 5)).cpu
        _ = wanted
        for (index, stage) in stages.enumerated() {
            bench.report.add(section: "preview", item: "\(frames.name) \(stage.0)",
                             value: "\(format(samples[index].median, 3)) ms CPU (p99 \(format(samples[index].p99, 3)))",
                             numbers: [("cpu_median_ms", samples[index].median), ("cpu_p99_ms", samples[index].p99)])
        }
        guard frames.name == "1280x720" else { return }
        guard !bench.recognitionCPU720.isEmpty else {
            bench.report.note("preview: the overhead ratios need the recognition section (run it too)")
            return
        }
        // Per recognized frame: the copies made while one frame is recognized and the
        // preview frames encoded meanwhile.
        let recognize = bench.recognitionCPU720.mean
        let check = samples[0].median, copy = samples[1].median, encode = samples[3].median
        let encodesPerRecognition = Self.previewFramesPerSecond * recognize / 1000
        let capturedPerRecognition = max(1, 30 * recognize / 1000)
        let off = check * capturedPerRecognition / recognize
        let on = (copy + encode * encodesPerRecognition) / recognize
        let onAt30 = (copy * capturedPerRecognition + encode * encodesPerRecognition) / recognize
        bench.report.add(section: "preview", item: "1280x720 YUYV: overhead ratio added without a preview (30 fps camera)",
                         value: "\(format(off, 5)) (\(format(check * 1000, 2)) µs per frame, recognition \(format(recognize, 1)) ms)",
                         target: "0", status: Report.check(off < 0.0005), numbers: [("ratio", off)])
        // With live stacking (the default) the stacker keeps a copy of every captured
        // frame while a preview is wanted: that is the figure judged.
        bench.report.add(section: "preview", item: "1280x720 YUYV: overhead ratio added by a colour preview at 5 fps, 30 fps camera",
                         value: "\(format(onAt30, 4)) = (\(format(capturedPerRecognition, 1)) × \(format(copy, 3)) ms copy + \(format(encodesPerRecognition, 2)) × \(format(encode, 2)) ms encode) / \(format(recognize, 1)) ms",
                         target: "≤ 0.05", status: Report.check(onAt30 <= 0.05), numbers: [("ratio", onAt30)])
        bench.report.add(section: "preview", item: "1280x720 YUYV: the same copying only the frames recognized (--stack off --gate off)",
                         value: "\(format(on, 4))", numbers: [("ratio", on)])
    }
}
