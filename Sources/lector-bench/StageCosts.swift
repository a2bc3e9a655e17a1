import Glibc
import LectorClient
import LectorImaging
import LectorProtocol
import LectorSystem

/// Section 1: what each cheap stage costs per frame, at every size. The stages run
/// round-robin (one iteration of each, then again) so machine noise hits all alike.
struct StageCosts {
    let bench: Benchmark

    private struct Stage {
        let name: String
        let body: () -> Void
    }

    func run() {
        for frames in bench.frames {
            measure(frames)
        }
    }

    private func measure(_ frames: BenchFrameSet) {
        let extractor = LumaExtractor()
        var stages: [Stage] = []
        let noisy = frames.noisy
        let rawFormats: [PixelFormat] = [.grey, .yuyv, .uyvy, .nv12, .yu12, .rgb24, .bgr24, .xbgr32]
        for format in rawFormats {
            let frame = frames.frame(format)
            var luma = GrayImage(width: 0, height: 0)  // one output per stage: its size never changes
            stages.append(Stage(name: "luma \(format.fourcc)") { try? extractor.extract(frame, into: &luma) })
        }
        for noisyFrame in [false, true] {
            let frame = frames.frame(.mjpeg, noisy: noisyFrame)
            let label = noisyFrame ? "noisy" : "clean"
            let kilobytes = Double(frame.bytesUsed) / 1024
            var full = GrayImage(width: 0, height: 0), half = GrayImage(width: 0, height: 0)
            stages.append(Stage(name: "MJPEG→gray full, \(label) (\(Int(kilobytes)) KB)") { try? extractor.extract(frame, into: &full) })
            stages.append(Stage(name: "MJPEG→gray ½ in libjpeg, \(label)") { try? extractor.extract(frame, into: &half, scale: 2) })
        }
        for orientation in [ImageOrientation.right, .down, .left, .upMirrored] {
            let transform = OrientationTransform(orientation: orientation, sourceWidth: noisy.width, sourceHeight: noisy.height)
            var output = GrayImage(width: 0, height: 0)
            stages.append(Stage(name: "upright \(orientation.rotation)°\(orientation.isMirrored ? " mirrored" : "")") {
                transform.apply(noisy, into: &output)
            })
        }
        var halvedOutput = GrayImage(width: 0, height: 0)
        stages.append(Stage(name: "downscale ½ (GrayImage.halved)") { noisy.halved(into: &halvedOutput) })
        // Deskew (issue 17): the angle estimate every frame pays with --deskew on, and the
        // rotation a crooked frame pays on top (5°, full size).
        stages.append(Stage(name: "deskew estimate (Deskew.estimateAngle)") { _ = Deskew.estimateAngle(noisy) })
        let tilt = SmallRotation(clockwise: 5, sourceWidth: noisy.width, sourceHeight: noisy.height)
        stages.append(Stage(name: "deskew rotation 5° (SmallRotation.apply)") { _ = tilt.apply(noisy, background: 235) })

        // JSON encoding of a real result of this frame.
        if let publication = Benchmark.publication(of: noisy) {
            let report = publication.text, frameReport = publication.frame
            var bytes: [UInt8] = []
            stages.append(Stage(name: "TEXT message build (\(report.text.words.count) words)") { _ = report.message() })
            stages.append(Stage(name: "TEXT build + JSON encode") { bytes = report.message().bytes })
            stages.append(Stage(name: "FRAME build + JSON encode") { bytes = frameReport.message.bytes })
            bench.report.note("\(frames.name): the TEXT line is \(publication.textLine.count) bytes for \(report.text.words.count) words")
            _ = bytes
        }

        // Thread CPU time is the measure (wall time also counts moments when other
        // processes had the CPU); the wall-time median is kept in the JSON.
        let (samples, wall) = measureStages(stages.map(\.body), iterations: bench.options.stageIterations)
        let megapixels = Double(frames.width * frames.height) / 1e6
        for (index, stage) in stages.enumerated() {
            let median = samples[index].median
            bench.report.add(section: "stages", item: "\(frames.name) \(stage.name)",
                             value: "\(format(median, 3)) ms CPU (p99 \(format(samples[index].p99, 3)); wall median \(format(wall[index].median, 3)))",
                             numbers: [("cpu_median_ms", median), ("cpu_p99_ms", samples[index].p99), ("cpu_mean_ms", samples[index].mean),
                                       ("wall_median_ms", wall[index].median),
                                       ("ns_per_pixel", median * 1e6 / (megapixels * 1e6)),
                                       ("iterations", Double(samples[index].count))])
        }
    }
}
