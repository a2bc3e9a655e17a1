import Foundation
import LectorEngine
import LectorImaging
import LectorLive
import LectorProtocol
import LectorRecognition
import LectorSystem

/// Issue 17: what a frame costs with the text-line detector and without it. Tesseract's
/// layout reads the whole frame every time; the detector layout detects lines on a scene
/// change and, while the scene is still, only reads the known lines again. A moving
/// camera: the frame drifts a few pixels per frame through a real ``FrameStacker``,
/// whose stack says when the scene changed.
struct DetectorBenchmark {
    let bench: Benchmark

    func run() {
        var detectorOptions = RecognizerOptions()
        detectorOptions.layout = .detector
        guard let probe = try? TextRecognizer(options: detectorOptions) else {
            bench.report.note("detector: no text-line detector here (model not installed, or built without ONNX Runtime): skipped")
            bench.report.add(section: "detector", item: "detector layout", value: "not available")
            return
        }
        _ = probe
        let rounds = bench.options.smoke ? 3 : max(10, bench.options.rounds * 4)
        for frames in bench.frames {
            let image = frames.image(noisy: true)
            var tesseractOptions = RecognizerOptions()
            tesseractOptions.layout = .tesseract
            guard let tesseract = try? TextRecognizer(options: tesseractOptions),
                  let detector = try? TextRecognizer(options: detectorOptions) else { continue }
            var plain = Samples(), change = Samples(), still = Samples(), moving = Samples()
            var detections = 0, movingReads = 0, lines = 0
            var plainWords: [String] = [], detectorWords: [String] = []
            _ = try? tesseract.recognize(image)
            for _ in 0..<rounds {
                let started = MonotonicInstant.now()
                guard let text = try? tesseract.recognize(image) else { break }
                plain.append(MonotonicInstant.now().milliseconds(since: started))
                plainWords = text.words.map(\.text)
            }
            // Scene change: a new stack generation every frame, so every frame is detected.
            for round in 0..<rounds {
                let started = MonotonicInstant.now()
                guard let text = try? detector.recognize(image, scene: SceneHint(generation: 1000 + round, dx: 0, dy: 0)) else { break }
                change.append(MonotonicInstant.now().milliseconds(since: started))
                detectorWords = text.words.map(\.text)
                lines = detector.lastDetectorRead?.lines ?? 0
            }
            // Still scene: one generation; the first read detects, the others find the same
            // pixels (a replayed image: every line keeps its reading, none is read again).
            _ = try? detector.recognize(image, scene: SceneHint(generation: 1, dx: 0, dy: 0))
            for _ in 0..<rounds {
                let started = MonotonicInstant.now()
                guard (try? detector.recognize(image, scene: SceneHint(generation: 1, dx: 0, dy: 0))) != nil else { break }
                still.append(MonotonicInstant.now().milliseconds(since: started))
            }
            // Moving camera: a drift of 3 px per frame, right then back, through the real stacker.
            let stacker = FrameStacker(capacity: 16)
            for round in 0..<(2 * rounds) {
                let offset = 3 * (round % 20 < 10 ? round % 10 : 10 - round % 10)
                let moved = LiveBenchmark.moved(image, dx: offset, dy: offset / 3)
                let frame = Frame(format: .grey, width: moved.width, height: moved.height, sequence: UInt32(round),
                                  timestamp: MonotonicInstant.now(), buffer: HeapFrameBuffer(copying: moved.pixels))
                guard let stacked = try? stacker.fold(frame), let info = stacked.stackInfo else { continue }
                var luma = GrayImage(width: 0, height: 0)
                guard (try? LumaExtractor().extract(stacked, into: &luma)) != nil else { continue }
                let started = MonotonicInstant.now()
                guard (try? detector.recognize(luma, scene: SceneHint(generation: info.generation, dx: info.shift.dx, dy: info.shift.dy))) != nil
                else { break }
                moving.append(MonotonicInstant.now().milliseconds(since: started))
                movingReads += 1
                if detector.lastDetectorRead?.detected == true { detections += 1 }
            }
            let recall = { (words: [String]) in frames.wordRecall(words) }
            bench.report.add(section: "detector", item: "\(frames.name) per frame, Tesseract's layout (psm 3)",
                             value: "\(format(plain.median, 1)) ms (recall \(format(recall(plainWords), 2)))",
                             numbers: [("tesseract_ms", plain.median)])
            bench.report.add(section: "detector", item: "\(frames.name) per frame, detector, scene change (detect + \(lines) lines)",
                             value: "\(format(change.median, 1)) ms (recall \(format(recall(detectorWords), 2)))",
                             numbers: [("detector_change_ms", change.median)])
            bench.report.add(section: "detector", item: "\(frames.name) per frame, detector, still scene (the same pixels: lines kept)",
                             value: "\(format(still.median, 1)) ms", numbers: [("detector_still_ms", still.median)])
            bench.report.add(section: "detector", item: "\(frames.name) per frame, detector, moving camera (3 px/frame drift)",
                             value: "\(format(moving.mean, 1)) ms mean, \(detections) of \(movingReads) frames detected",
                             numbers: [("detector_moving_ms", moving.mean), ("detector_moving_detected", Double(detections))])
        }
    }
}
