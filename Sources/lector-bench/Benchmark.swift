import Foundation
import LectorClient
import LectorImaging
import LectorPipeline
import LectorProtocol
import LectorRecognition
import LectorSystem

/// Runs the selected sections, prints the table, writes the JSON.
final class Benchmark {
    let options: BenchOptions
    let report = Report()
    let logger = Logger(label: "lector-bench", level: .warning)
    private(set) var frames: [BenchFrameSet] = []
    /// Measured Tesseract recognition times (ms) of the 1280x720 noisy frame at full
    /// size, from the recognition section: the stand-in recognizer's distribution.
    var recognitionSamples720 = Samples()
    /// Thread CPU time of Tesseract per 1280x720 YUYV frame (full size), from the
    /// recognition section: the denominator of the overhead ratios of later sections.
    var recognitionCPU720 = Samples()

    init(options: BenchOptions) {
        self.options = options
        report.judging = !options.smoke
    }

    func run() -> Int32 {
        let started = Clock.nanoseconds()
        guard let folder = BenchFrameSet.folder() else {
            FileHandle.standardError.write(Data("lector-bench: the benchmark frames are missing (Sources/lector-bench/Frames)\n".utf8))
            return 1
        }
        do {
            frames = try options.sizes.map { try BenchFrameSet(name: $0, folder: folder) }
        } catch {
            FileHandle.standardError.write(Data("lector-bench: cannot load frames: \(error)\n".utf8))
            return 1
        }
        describeMachine()
        let sections = BenchOptions.Section.allCases.filter { options.sections.contains($0) }
        var empty: [String] = []
        for section in sections {
            let sectionStart = Clock.nanoseconds()
            let rowsBefore = report.rows.count
            print("== \(section.rawValue)")
            switch section {
            case .stages: StageCosts(bench: self).run()
            case .recognition: RecognitionComparison(bench: self).run()
            case .pool: PoolThroughput(bench: self).run()  // issue 15: 1, 2, … recognizers per camera
            case .latency: LatencyUnderLoad(bench: self).run()
            case .fanout: FanOutBenchmark(bench: self).run()
            case .memory: MemoryBenchmark(bench: self).run()
            case .peer: PeerBenchmark(bench: self).run()
            case .live: LiveBenchmark(bench: self).run()
            case .preview: PreviewBenchmark(bench: self).run()
            case .detector: DetectorBenchmark(bench: self).run()  // issue 17: per frame with and without the detector
            case .networks: NetworkBenchmark(bench: self).run()  // issue 40: CPU per detection and per line, one thread
            case .known: KnownListBenchmark(bench: self).run()  // issue 45: a rule's known list of 100,000 plates per frame
            case .engines: EngineBenchmark(bench: self).run()  // issue 26: line engines on ../shared/testdata/realworld
            case .slowcpu: SlowMachineBenchmark(bench: self).run()  // issue 25: a third of a core, realworld photos as cameras
            case .segments: SegmentLines(bench: self).run()  // issue 44: display lines as the segments network reads them
            case .netcams: NetcamBenchmark(bench: self).run()  // issue 47: lectord's CPU per network camera against FFmpeg
            }
            print("== \(section.rawValue): \(format(Double(Clock.nanoseconds() - sectionStart) / 1e9, 1)) s")
            // Memory and slowcpu need lectord built beside the benchmark (slowcpu also a
            // writable cgroup), peer needs pytesseract, netcams a camera (skipped in smoke
            // mode without one); every other section must measure something.
            if report.rows.count == rowsBefore && ![.memory, .peer, .slowcpu, .netcams].contains(section) { empty.append(section.rawValue) }
        }
        let seconds = Double(Clock.nanoseconds() - started) / 1e9
        report.setContext("duration_s", .number(seconds))
        report.printSummary()
        print("lector-bench: \(options.smoke ? "smoke" : "full") run took \(format(seconds, 1)) s")
        if let path = options.jsonPath {
            do {
                try Data(JSONWriter.bytes(report.json())).write(to: URL(fileURLWithPath: path))
                let markdown = path.hasSuffix(".json") ? String(path.dropLast(5)) + ".md" : path + ".md"
                try Data(report.markdown().utf8).write(to: URL(fileURLWithPath: markdown))
                print("lector-bench: wrote \(path) and \(markdown)")
            } catch {
                FileHandle.standardError.write(Data("lector-bench: cannot write \(path): \(error)\n".utf8))
                return 1
            }
        }
        if !empty.isEmpty {
            FileHandle.standardError.write(Data("lector-bench: measured nothing in: \(empty.joined(separator: ", "))\n".utf8))
            return 1
        }
        return 0
    }

    /// A real publication of `image`: recognized at full size, as a camera "/dev/video0"
    /// would publish it; nil if Tesseract cannot start.
    static func publication(of image: GrayImage) -> Publication? {
        var options = RecognizerOptions()
        options.downscale = .none
        options.layout = .tesseract  // the sections before issue 17 measure Tesseract's layout
        guard let recognizer = try? TextRecognizer(options: options), let text = try? recognizer.recognize(image) else { return nil }
        let transform = OrientationTransform(orientation: .up, sourceWidth: image.width, sourceHeight: image.height)
        let report = TextReport(device: "/dev/video0", sequence: 1, captureTime: .now(), unixTime: 1.8e9,
                                transform: transform, text: text, recognizeMilliseconds: 60)
        var counters = FrameCounters.Snapshot()
        counters.captured = 1
        let frame = FrameReport(device: "/dev/video0", sequence: 1, unixTime: 1.8e9, format: .yuyv,
                                width: image.width, height: image.height, orientation: .up, counters: counters,
                                latencyMilliseconds: 70, recognizeMilliseconds: 60, overheadMilliseconds: 1)
        return Publication(text: report, textLine: report.message().bytes, frame: frame, upright: image)
    }

    /// A frame set by name, if it is part of this run.
    func frameSet(_ name: String) -> BenchFrameSet? { frames.first { $0.name == name } }

    private func describeMachine() {
        var machine: [(String, JSONValue)] = []
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown"
        let cpus = ProcessInfo.processInfo.activeProcessorCount
        let load = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
        machine.append(("cpu", .string(model)))
        machine.append(("cpus", .number(Double(cpus))))
        machine.append(("loadavg_at_start", .string(load)))
        machine.append(("omp_thread_limit", .string(ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] ?? "unset")))
        machine.append(("mode", .string(options.smoke ? "smoke" : "full")))
        report.setContext("machine", .object(machine))
        print("machine: \(model), \(cpus) CPUs, load average \(load), OMP_THREAD_LIMIT=\(ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] ?? "unset"), \(options.smoke ? "smoke" : "full") mode")
    }
}
