import Foundation
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
        let detector: TextLineDetector
        do {
            detector = try TextLineDetector(modelPath: try DetectorModel.locate(explicit: nil), threads: 1)
        } catch {
            skip("no text-line detector (\(error))")
            return
        }
        var neural: [(name: String, engine: NeuralLineEngine)] = []
        for variant in NeuralModel.Variant.allCases {
            do {
                neural.append(("neural-\(variant.rawValue)", try NeuralLineEngine(modelPath: try NeuralModel.locate(explicit: nil, variant: variant))))
            } catch {
                bench.report.note("engines: neural \(variant.rawValue): \(error)")
            }
        }
        var tesseracts: [String: TesseractEngine] = [:]
        var output: FileHandle?
        if let path = bench.options.linesPath {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            output = FileHandle(forWritingAtPath: path)
        }
        defer { try? output?.close() }
        func write(_ record: [String: Any]) {
            guard let output, let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]) else { return }
            output.write(data + Data("\n".utf8))
        }

        var perLine: [String: Samples] = [:], perLineCPU: [String: Samples] = [:]
        var detect = Samples()
        var lineCount = 0
        let limit = bench.options.smoke ? 3 : Int.max
        for entry in entries.prefix(limit) {
            let path = "\(folder)/\(entry.set)/\(entry.name)"
            guard let image = try? ImageFile.readGray(path: path) else {
                bench.report.note("engines: cannot read \(path)")
                continue
            }
            let tesseract: TesseractEngine
            if let loaded = tesseracts[entry.language] {
                tesseract = loaded
            } else {
                guard let loaded = try? TesseractEngine(language: entry.language, pageSegmentation: 7) else {
                    bench.report.note("engines: no Tesseract language \(entry.language)")
                    continue
                }
                tesseracts[entry.language] = loaded
                tesseract = loaded
            }
            let started = MonotonicInstant.now()
            guard let detected = try? detector.detect(image) else { continue }
            let detectMilliseconds = MonotonicInstant.now().milliseconds(since: started)
            detect.append(detectMilliseconds)
            let lines = detected.filter { min($0.width, $0.height) >= 4 && max($0.width, $0.height) >= 6 }
            write(["set": entry.set, "image": entry.name, "detect_ms": detectMilliseconds, "lines": lines.count,
                   "width": image.width, "height": image.height])
            // Steep lines (a photo turned a quarter) read bottom to top or top to bottom: as the
            // detector layout does, Tesseract reads the longest few both ways and the direction
            // with more confidence-weighted characters holds for every steep line of the photo.
            func tesseractRead(_ quad: LineQuad) -> [TextWord] {
                let crop = LineCrop(quad: quad, scale: LineCrop.scale(forThickness: quad.thickness, target: Self.tesseractThickness),
                                    padding: Self.tesseractPadding)
                return ((try? tesseract.recognize(crop.image(from: image), resolution: 300, deadline: 60_000))?.words ?? [])
                    .filter { $0.confidence >= Self.minimumWordConfidence }
            }
            let steep = lines.filter(\.isSteep).sorted { $0.quad().length > $1.quad().length }.prefix(3)
            let weight = { (words: [TextWord]) in words.reduce(0) { $0 + $1.confidence * Double($1.text.count) } }
            let steepFlipped = !steep.isEmpty
                && steep.map { weight(tesseractRead($0.quad(flipped: true))) }.reduce(0, +)
                    > steep.map { weight(tesseractRead($0.quad())) }.reduce(0, +)
            for (index, line) in lines.enumerated() {
                lineCount += 1
                let quad = line.quad(flipped: line.isSteep && steepFlipped)
                var record: [String: Any] = ["set": entry.set, "image": entry.name, "line": index,
                                             "thickness": quad.thickness, "length": quad.length]
                // Tesseract, as the detector layout reads a line.
                let tesseractStarted = MonotonicInstant.now(), tesseractCPU = RecognitionTimings.threadCPUMilliseconds()
                let words = tesseractRead(quad)
                let tesseractMilliseconds = MonotonicInstant.now().milliseconds(since: tesseractStarted)
                perLine["tesseract", default: Samples()].append(tesseractMilliseconds)
                perLineCPU["tesseract", default: Samples()].append(RecognitionTimings.threadCPUMilliseconds() - tesseractCPU)
                record["tesseract"] = ["text": words.map(\.text).joined(separator: " "), "ms": tesseractMilliseconds,
                                       "cpu_ms": RecognitionTimings.threadCPUMilliseconds() - tesseractCPU,
                                       "confidence": words.isEmpty ? 0 : words.map(\.confidence).reduce(0, +) / Double(words.count)]
                // Either engine's time includes cutting the line out (tens of thousands of samples,
                // small beside the reads).
                for (name, engine) in neural {
                    let neuralStarted = MonotonicInstant.now(), neuralCPU = RecognitionTimings.threadCPUMilliseconds()
                    let read = try? engine.read(quad, of: image)
                    let milliseconds = MonotonicInstant.now().milliseconds(since: neuralStarted)
                    let cpu = RecognitionTimings.threadCPUMilliseconds() - neuralCPU
                    perLine[name, default: Samples()].append(milliseconds)
                    perLineCPU[name, default: Samples()].append(cpu)
                    record[name] = ["text": read?.text ?? "", "ms": milliseconds, "cpu_ms": cpu, "confidence": read?.confidence ?? 0]
                }
                write(record)
            }
        }
        bench.report.add(section: "engines", item: "detection per photo (\(detect.count) photos, \(lineCount) lines)",
                         value: "\(format(detect.median, 0)) ms median, \(format(detect.mean, 0)) mean",
                         numbers: [("detect_ms", detect.median)])
        for name in ["tesseract"] + neural.map(\.name) {
            guard let samples = perLine[name], let cpu = perLineCPU[name], samples.count > 0 else { continue }
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
