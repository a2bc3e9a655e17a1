import Foundation
import LectorDetector
import LectorEngine
import LectorImaging
import LectorRecognition
import LectorSystem

/// Issue 40: what the two networks alone cost in CPU, one thread: a detection of each
/// benchmark frame at 960 px on its longer side (the detector's network with its
/// pre- and post-processing), and a read of each line it found by each installed neural
/// model (the network with the line's crop and decoding). Thread CPU time, steadier than
/// wall time on a shared machine; the same section in two builds compares their runtimes.
struct NetworkBenchmark {
    let bench: Benchmark

    /// The detection size measured (the detector layout's first look at a frame).
    static let detectionSide = 960

    func run() {
        let detector: TextLineDetector
        do {
            detector = try TextLineDetector(modelPath: try DetectorModel.locate(explicit: nil), threads: 1)
        } catch {
            bench.report.note("networks: no text-line detector (\(error)): skipped")
            bench.report.add(section: "networks", item: "networks", value: "not available")
            return
        }
        var neural: [(name: String, engine: NeuralLineEngine)] = []
        for variant in NeuralModel.Variant.allCases {
            if let engine = try? NeuralLineEngine(modelPath: try NeuralModel.locate(explicit: nil, variant: variant), threads: 1) {
                neural.append(("neural-\(variant.rawValue)", engine))
            }
        }
        let rounds = bench.options.smoke ? 1 : max(3, bench.options.rounds / 4)
        var detection = Samples()
        var perLine: [String: Samples] = [:]
        var lines: [DetectedLine] = []
        for frames in bench.frames {
            let image = frames.image(noisy: true)
            _ = try? detector.detect(image, maximumSide: Self.detectionSide)  // the first run sets the runtime up
            for _ in 0..<rounds {
                let started = RecognitionTimings.threadCPUMilliseconds()
                guard let found = try? detector.detect(image, maximumSide: Self.detectionSide) else { break }
                detection.append(RecognitionTimings.threadCPUMilliseconds() - started)
                lines = found
            }
            let quads = lines.filter { min($0.width, $0.height) >= 4 }.prefix(bench.options.smoke ? 3 : 40).map { $0.quad() }
            for (name, engine) in neural {
                _ = quads.first.map { try? engine.read($0, of: image) }
                for quad in quads {
                    let started = RecognitionTimings.threadCPUMilliseconds()
                    guard (try? engine.read(quad, of: image)) != nil else { continue }
                    perLine[name, default: Samples()].append(RecognitionTimings.threadCPUMilliseconds() - started)
                }
            }
        }
        bench.report.add(section: "networks", item: "detection at \(Self.detectionSide) px, CPU (\(detection.count) runs)",
                         value: "\(format(detection.mean, 1)) ms mean, \(format(detection.median, 1)) median",
                         numbers: [("detection_cpu_ms", detection.mean)])
        for (name, _) in neural {
            guard let samples = perLine[name], samples.count > 0 else { continue }
            bench.report.add(section: "networks", item: "\(name) per line, CPU (\(samples.count) lines)",
                             value: "\(format(samples.mean, 1)) ms mean, \(format(samples.median, 1)) median",
                             numbers: [("\(name)_line_cpu_ms", samples.mean)])
        }
    }
}
