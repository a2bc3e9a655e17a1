import Foundation
import LectorDetector
import LectorImaging
import LectorProtocol
import LectorSystem

/// Issue 44: the lines the segments engine reads in photos of displays, written out for
/// training and measuring its network (scripts/label-segment-lines.py,
/// scripts/train-segments.py `--real`). Every photo of a folder (`--meters DIR`: its
/// truth.tsv, photos in `img/`, as ../shared/testdata/meters) is detected once at the
/// detector's full size; each line is cut out as lectord's `engine = segments` cuts it
/// (``DetectorLayout``: upright, lengthened as ``LinePolicy/segmentsLine(_:)`` says,
/// straightened at the network's 48 px height, which
/// `lector_lr_input` then takes as it is) and read by the segments network. Writes into
/// `--crops DIR` one 8-bit PGM per line (`<photo>-<line>.pgm`: the network's input
/// before its scaling to −1…1 and its padding) and `lines.jsonl`: a record per line
/// (photo, line, file, width, the text read, its confidence, the quad).
/// Runs only when asked (`--only segments`).
struct SegmentLines {
    let bench: Benchmark

    func run() {
        let folder = bench.options.meters ?? FileManager.default.currentDirectoryPath + "/../shared/testdata/meters"
        guard let outputFolder = bench.options.cropsPath else {
            skip("no --crops DIR to write the lines into")
            return
        }
        guard let truth = FileManager.default.contents(atPath: folder + "/truth.tsv") else {
            skip("no \(folder)/truth.tsv (give --meters DIR)")
            return
        }
        let photos = String(decoding: truth, as: UTF8.self).split(separator: "\n").compactMap { row -> String? in
            let name = row.split(separator: "\t", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return name.hasSuffix(".jpg") || name.hasSuffix(".png") ? name : nil
        }
        let detector: TextLineDetector, engine: NeuralLineEngine
        do {
            detector = try TextLineDetector(modelPath: try DetectorModel.locate(explicit: nil), threads: 1)
            engine = try NeuralLineEngine(modelPath: try SegmentsModel.locate(explicit: bench.options.segmentsModel))
        } catch {
            skip("\(error)")
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: outputFolder, withIntermediateDirectories: true)
        } catch {
            skip("cannot make \(outputFolder): \(error)")
            return
        }
        _ = FileManager.default.createFile(atPath: outputFolder + "/lines.jsonl", contents: nil)
        guard let records = FileHandle(forWritingAtPath: outputFolder + "/lines.jsonl") else {
            skip("cannot write \(outputFolder)/lines.jsonl")
            return
        }
        defer { try? records.close() }
        var lineCount = 0, photoCount = 0
        let started = MonotonicInstant.now()
        for photo in photos.prefix(bench.options.smoke ? 3 : Int.max) {
            guard let image = try? ImageFile.readGray(path: "\(folder)/img/\(photo)"),
                  let detected = try? detector.detect(image, maximumSide: bench.options.detectSide) else {
                bench.report.note("segments: cannot read or detect \(photo)")
                continue
            }
            photoCount += 1
            let lines = detected.filter { min($0.width, $0.height) >= 4 && max($0.width, $0.height) >= 6 }
            for (index, line) in lines.enumerated() {
                let record = write(line: line, index: index, of: image, photo: photo, engine: engine, into: outputFolder)
                guard let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]) else { continue }
                records.write(data + Data("\n".utf8))
                lineCount += 1
            }
        }
        let seconds = MonotonicInstant.now().milliseconds(since: started) / 1000
        bench.report.add(section: "segments", item: "display lines written (\(photoCount) photos) to \(outputFolder)",
                         value: "\(lineCount) lines, \(format(seconds, 1)) s", numbers: [("segment_lines", Double(lineCount))])
    }

    /// Cuts `line` out as the segments engine does, writes its PGM, reads it: the record.
    private func write(line: DetectedLine, index: Int, of image: GrayImage, photo: String, engine: NeuralLineEngine,
                       into folder: String) -> [String: Any] {
        let detectedQuad = line.quad()
        let quad = LinePolicy.segmentsLine(detectedQuad)
        let crop = LineCrop(quad: quad, scale: NeuralLineEngine.lineHeight / max(quad.thickness, 1e-6))
        let pixels = crop.image(from: image)
        let stem = (photo as NSString).deletingPathExtension
        let file = "\(stem)-\(index).pgm"
        try? BenchFrameSet.writePGM(pixels, to: "\(folder)/\(file)")
        let read = try? engine.read(pixels, crop: crop, imageWidth: image.width, imageHeight: image.height)
        let corners = [quad.topLeft, quad.topRight, quad.bottomRight, quad.bottomLeft].map { [$0.x, $0.y] }
        return ["photo": photo, "line": index, "file": file, "width": pixels.width, "height": pixels.height,
                "text": read?.text ?? "", "confidence": read?.confidence ?? 0, "quad": corners,
                "thickness": detectedQuad.thickness]
    }

    private func skip(_ reason: String) {
        bench.report.note("segments: \(reason): skipped")
        bench.report.add(section: "segments", item: "display lines", value: "not available")
    }
}
