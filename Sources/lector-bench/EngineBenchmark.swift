import Foundation
import LectorDetector
import LectorEngine
import LectorImaging
import LectorProtocol
import LectorRecognition
import LectorSystem

/// Issue 26: the line engines side by side on real camera photos. Every image of
/// ../shared/testdata/realworld (truth.tsv) is detected once with the text-line detector;
/// each line is then read, interleaved, by Tesseract as a single line (page segmentation
/// 7, the crop and word filter of the detector layout) and by the neural line recognizer
/// with each installed model (full, Latin). Reports the cost per line of each engine and
/// the detection per image; `--lines FILE` writes every line's reads as JSON lines, which
/// scripts/eval-realworld.py --engines scores (recall, precision, plates, cascades).
///
/// Lines are read in the direction the detector layout would read them, except that
/// shallow lines are never read upside down (no realworld photo is).
/// Runs only when asked (`--only engines`): it reads 117 photos.
struct EngineBenchmark {
    let bench: Benchmark

    /// What the detector layout passes on: crops of this thickness for Tesseract, with
    /// this padding, and words above this confidence.
    static let tesseractThickness = 48.0
    static let tesseractPadding = 8
    static let minimumWordConfidence = 0.1

    struct Entry {
        let set: String
        let name: String
        let language: String
    }

    /// Times per line and per photo, by engine.
    struct Tally {
        var perLine: [String: Samples] = [:]
        var perLineCPU: [String: Samples] = [:]
        var detect = Samples()
        var lineCount = 0

        mutating func add(_ name: String, milliseconds: Double, cpu: Double) {
            perLine[name, default: Samples()].append(milliseconds)
            perLineCPU[name, default: Samples()].append(cpu)
        }
    }

    /// The engines a photo's lines are read with.
    struct Engines {
        let detector: TextLineDetector
        let neural: [(name: String, engine: NeuralLineEngine)]
        var tesseracts: [String: TesseractEngine] = [:]
    }

    func run() {
        let folder = bench.options.realworld ?? FileManager.default.currentDirectoryPath + "/../shared/testdata/realworld"
        guard let truth = FileManager.default.contents(atPath: folder + "/truth.tsv") else {
            skip("no \(folder)/truth.tsv (give --realworld DIR)")
            return
        }
        let entries = String(decoding: truth, as: UTF8.self).split(separator: "\n").compactMap { row -> Entry? in
            let fields = row.split(separator: "\t", omittingEmptySubsequences: false)
            return fields.count >= 3 ? Entry(set: String(fields[0]), name: String(fields[1]), language: String(fields[2])) : nil
        }
        guard var engines = loadEngines() else { return }
        let output = bench.options.linesPath.flatMap { path -> FileHandle? in
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        }
        defer { try? output?.close() }
        var tally = Tally()
        for entry in entries.prefix(bench.options.smoke ? 3 : Int.max) {
            measure(entry, folder: folder, engines: &engines, tally: &tally) { record in
                guard let output, let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]) else { return }
                output.write(data + Data("\n".utf8))
            }
        }
        report(tally, neural: engines.neural.map(\.name))
    }

    /// The detector and both neural models; nil (said) without the detector.
    private func loadEngines() -> Engines? {
        let detector: TextLineDetector
        do {
            detector = try TextLineDetector(modelPath: try DetectorModel.locate(explicit: nil), threads: 1)
        } catch {
            skip("no text-line detector (\(error))")
            return nil
        }
        var neural: [(name: String, engine: NeuralLineEngine)] = []
        for variant in NeuralModel.Variant.allCases {
            do {
                neural.append(("neural-\(variant.rawValue)", try NeuralLineEngine(modelPath: try NeuralModel.locate(explicit: nil, variant: variant))))
            } catch {
                bench.report.note("engines: neural \(variant.rawValue): \(error)")
            }
        }
        return Engines(detector: detector, neural: neural)
    }

    /// Detects one photo's lines and reads each with every engine, writing a record per
    /// photo and per line.
    private func measure(_ entry: Entry, folder: String, engines: inout Engines, tally: inout Tally,
                         write: ([String: Any]) -> Void) {
        let path = "\(folder)/\(entry.set)/\(entry.name)"
        guard let image = try? ImageFile.readGray(path: path) else {
            bench.report.note("engines: cannot read \(path)")
            return
        }
        guard let tesseract = engines.tesseracts[entry.language] ?? (try? TesseractEngine(language: entry.language, pageSegmentation: 7)) else {
            bench.report.note("engines: no Tesseract language \(entry.language)")
            return
        }
        engines.tesseracts[entry.language] = tesseract
        let started = MonotonicInstant.now()
        guard let detected = try? engines.detector.detect(image) else { return }
        let detectMilliseconds = MonotonicInstant.now().milliseconds(since: started)
        tally.detect.append(detectMilliseconds)
        let lines = detected.filter { min($0.width, $0.height) >= 4 && max($0.width, $0.height) >= 6 }
        write(["set": entry.set, "image": entry.name, "detect_ms": detectMilliseconds, "lines": lines.count,
               "width": image.width, "height": image.height])
        // Steep lines (a photo turned a quarter) read bottom to top or top to bottom: as the
        // detector layout does, Tesseract reads the longest few both ways and the direction
        // with more confidence-weighted characters holds for every steep line of the photo.
        let tesseractRead = { (quad: LineQuad) in Self.read(quad, of: image, with: tesseract) }
        let steep = lines.filter(\.isSteep).sorted { $0.quad().length > $1.quad().length }.prefix(3)
        let weight = { (words: [TextWord]) in words.reduce(0) { $0 + $1.confidence * Double($1.text.count) } }
        let steepFlipped = !steep.isEmpty
            && steep.map { weight(tesseractRead($0.quad(flipped: true))) }.reduce(0, +)
                > steep.map { weight(tesseractRead($0.quad())) }.reduce(0, +)
        for (index, line) in lines.enumerated() {
            tally.lineCount += 1
            let quad = line.quad(flipped: line.isSteep && steepFlipped)
            var record: [String: Any] = ["set": entry.set, "image": entry.name, "line": index,
                                         "thickness": quad.thickness, "length": quad.length]
            // Tesseract, as the detector layout reads a line.
            let tesseractStarted = MonotonicInstant.now(), tesseractCPU = RecognitionTimings.threadCPUMilliseconds()
            let words = tesseractRead(quad)
            let tesseractMilliseconds = MonotonicInstant.now().milliseconds(since: tesseractStarted)
            let cpu = RecognitionTimings.threadCPUMilliseconds() - tesseractCPU
            tally.add("tesseract", milliseconds: tesseractMilliseconds, cpu: cpu)
            record["tesseract"] = ["text": words.map(\.text).joined(separator: " "), "ms": tesseractMilliseconds, "cpu_ms": cpu,
                                   "confidence": words.isEmpty ? 0 : words.map(\.confidence).reduce(0, +) / Double(words.count),
                                   "words": words.map { [$0.text, $0.confidence] as [Any] }]
            // Either engine's time includes cutting the line out (tens of thousands of samples,
            // small beside the reads).
            for (name, engine) in engines.neural {
                let neuralStarted = MonotonicInstant.now(), neuralCPU = RecognitionTimings.threadCPUMilliseconds()
                let read = try? engine.read(quad, of: image)
                let milliseconds = MonotonicInstant.now().milliseconds(since: neuralStarted)
                let cpu = RecognitionTimings.threadCPUMilliseconds() - neuralCPU
                tally.add(name, milliseconds: milliseconds, cpu: cpu)
                record[name] = ["text": read?.text ?? "", "ms": milliseconds, "cpu_ms": cpu, "confidence": read?.confidence ?? 0]
            }
            write(record)
        }
    }

    /// One line read by Tesseract as the detector layout reads it (page segmentation 7).
    private static func read(_ quad: LineQuad, of image: GrayImage, with tesseract: TesseractEngine) -> [TextWord] {
        let crop = LineCrop(quad: quad, scale: LineCrop.scale(forThickness: quad.thickness, target: tesseractThickness),
                            padding: tesseractPadding)
        return ((try? tesseract.recognize(crop.image(from: image), resolution: 300, deadline: 60_000))?.words ?? [])
            .filter { $0.confidence >= minimumWordConfidence }
    }

    /// The section's rows: detection per photo, each engine per line.
    private func report(_ tally: Tally, neural: [String]) {
        bench.report.add(section: "engines", item: "detection per photo (\(tally.detect.count) photos, \(tally.lineCount) lines)",
                         value: "\(format(tally.detect.median, 0)) ms median, \(format(tally.detect.mean, 0)) mean",
                         numbers: [("detect_ms", tally.detect.median)])
        for name in ["tesseract"] + neural {
            guard let samples = tally.perLine[name], let cpu = tally.perLineCPU[name], samples.count > 0 else { continue }
            bench.report.add(section: "engines", item: "\(name) per line",
                             value: "\(format(samples.median, 1)) ms median, \(format(samples.mean, 1)) mean; CPU \(format(cpu.mean, 1)) ms mean",
                             numbers: [("\(name)_line_ms", samples.median), ("\(name)_line_mean_ms", samples.mean),
                                       ("\(name)_line_cpu_ms", cpu.mean)])
        }
    }

    private func skip(_ reason: String) {
        bench.report.note("engines: \(reason): skipped")
        bench.report.add(section: "engines", item: "line engines", value: "not available")
    }
}
