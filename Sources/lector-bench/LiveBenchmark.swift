import Foundation
import Glibc
import LectorClient
import LectorImaging
import LectorLive
import LectorProtocol
import LectorRecognition
import LectorSystem

/// Section 7 (issue 11): live text. (1) What stacking, tracking and gating cost per
/// frame at every size, beside the luma extraction they follow, and their share of the
/// overhead ratio; (2) outside smoke mode, the daemon's figures on generated camera-like
/// sequences (tests/live/measure.py on scripts/make-live-sequences.py), live against
/// `--stack off --gate off`.
struct LiveBenchmark {
    let bench: Benchmark

    func run() {
        for frames in bench.frames { stageCosts(frames) }
        if !bench.options.smoke { throughDaemon() }
    }

    /// Capture-side costs on a jittered stream of the noisy frame, and the tracker's.
    private func stageCosts(_ frames: BenchFrameSet) {
        let stages = captureStages(frames) + trackerStages(frames)
        let samples = measureStages(stages.map(\.1), iterations: bench.options.stageIterations).cpu
        for (stageIndex, stage) in stages.enumerated() {
            let median = samples[stageIndex].median
            bench.report.add(section: "live", item: "\(frames.name) \(stage.0)",
                             value: "\(format(median, 3)) ms CPU (p99 \(format(samples[stageIndex].p99, 3)))",
                             numbers: [("cpu_median_ms", median), ("cpu_p99_ms", samples[stageIndex].p99)])
        }
        // Per captured frame: the capture thread's fold (luma included) and the gate check.
        let capture = samples[3].median
        // Per recognized frame besides: the read-out the recognizer does (the stacked frame
        // it takes) and the tracker (the flickering case, the dearer one).
        let readOut = max(samples[2].median, samples[4].median - samples[3].median)
        if frames.name == "1280x720", let recognize = recognitionCPU(of: frames.noisy) {
            reportOverheadRatio(perCaptured: capture + samples[5].median, readOut: readOut,
                                tracker: max(samples[6].median, samples[7].median), recognize: recognize)
        }
        let met = capture <= 2
        bench.report.add(section: "live", item: "\(frames.name) capture side per captured frame (luma + fold)",
                         value: "\(format(capture, 3)) ms per frame", target: "≤ 2 ms at 1280x720",
                         status: frames.name == "1280x720" ? Report.check(met) : .info, numbers: [("capture_ms", capture)])
    }

    /// The capture side's stages (0-5: profiles, fold, read-out, the capture thread's fold
    /// of a YUYV frame unread and taken, the gate check) on eight hand-held positions of
    /// the noisy frame.
    private func captureStages(_ frames: BenchFrameSet) -> [(String, () -> Void)] {
        let noisy = frames.noisy
        // Eight hand-held positions of the same scene (a few pixels apart).
        let shifts = [(0, 0), (2, 1), (-1, 3), (3, -2), (1, 1), (-2, -2), (0, 2), (2, 0)]
        let stream = shifts.map { shift in Self.moved(noisy, dx: shift.0, dy: shift.1) }
        let stack = FrameStack(settings: .init(capacity: 16))
        var index = 0
        var mean = GrayImage(width: 0, height: 0)
        var profiles = LumaProfiles(rows: [], columns: [])
        let signature = { stack.signature }
        // The same positions as a YUYV camera delivers them, for the stacker as the capture
        // thread runs it: luma and fold. A stacked frame's mean is read out only when a
        // recognizer takes it (straight into its luma image).
        let yuyvStream = stream.map { HeapFrameBuffer(copying: BenchFrameSet.encode($0, as: .yuyv, seed: 1)) }
        let stacker = FrameStacker(capacity: 16)
        let extractor = LumaExtractor()
        var taken = GrayImage(width: 0, height: 0)
        var sequence: UInt32 = 0
        let cameraStart = MonotonicInstant.now()
        stack.add(stream[0])
        let reference = stack.signature
        let yuyvFrame = { () -> Frame in
            sequence &+= 1
            // Capture times a 15 fps camera apart: every frame is folded (none between two folds).
            return Frame(format: .yuyv, width: frames.width, height: frames.height, sequence: sequence,
                         timestamp: cameraStart.adding(milliseconds: 66.7 * Double(sequence)),
                         buffer: yuyvStream[Int(sequence) % yuyvStream.count])
        }
        _ = profiles
        _ = taken
        return [
            ("live: luma profiles", { profiles = LumaProfiles(stream[index % stream.count]) }),
            ("live: stack fold (profiles + align + mean + signature)", {
                index += 1
                stack.add(stream[index % stream.count])
            }),
            ("live: stack read-out (mean in newest coordinates)", { stack.mean(into: &mean) }),
            ("live: FrameStacker.fold of a YUYV frame nobody reads (luma + fold), the capture thread's whole work", {
                // Replaced in the mailbox unread: given back before the next fold.
                (try? stacker.fold(yuyvFrame()))?.giveBack()
            }),
            ("live: FrameStacker.fold of a YUYV frame a recognizer takes (luma + fold + read-out into its luma)", {
                guard let stacked = try? stacker.fold(yuyvFrame()) else { return }
                try? extractor.extract(stacked, into: &taken)
                stacked.giveBack()
            }),
            ("live: gate check (signature compare)", { _ = signature().changedBlocks(from: reference, level: LiveSettings.gateLevel) }),
        ]
    }

    /// The tracker's stages (6-7): an update and vote of the frames' lines, every reading
    /// agreeing, and with a word misread in every third reading.
    private func trackerStages(_ frames: BenchFrameSet) -> [(String, () -> Void)] {
        let tracker = LineTracker(device: "bench")
        let lines = frames.truth.enumerated().map { line, text in
            LineTracker.Line(words: text.split(separator: " ").map { VotedWord(String($0), confidence: 0.9) },
                             box: PixelBox(x: 60, y: 40 + 60 * line, width: 400, height: 30))
        }
        // Readings that flicker as a real still scene's do: every third update misreads
        // one word of each line by one character (the vote then aligns and votes).
        let flickerTracker = LineTracker(device: "bench")
        var flickerRound = 0
        let flickering = { (round: Int) -> [LineTracker.Line] in
            lines.enumerated().map { number, line in
                var words = line.words
                if round % 3 == 1, !words.isEmpty {
                    let slot = (round / 3 + number) % words.count
                    words[slot] = VotedWord(String(words[slot].text.dropLast()) + "l", confidence: 0.6)
                }
                return LineTracker.Line(words: words, box: line.box)
            }
        }
        var time = MonotonicInstant.now()
        return [
            ("live: tracker update + vote (\(lines.count) lines, settled: every reading agrees)", {
                time = time.adding(milliseconds: 66)
                _ = tracker.update(lines: lines, shift: (0, 0), at: time)
            }),
            ("live: tracker update + vote (\(lines.count) lines, a word misread in every third reading)", {
                time = time.adding(milliseconds: 66)
                flickerRound += 1
                _ = flickerTracker.update(lines: flickering(flickerRound), shift: (0, 0), at: time)
            }),
        ]
    }

    /// The overhead ratio (Lector's CPU per recognized frame / Tesseract's, as the
    /// recognition section measures it: one frame, one recognition) that stacking, the
    /// gate and the tracks add; the capture side also runs for the frames a camera sends
    /// meanwhile, up to the 16 folds a second of a full stack
    /// (FrameStacker.fullStackInterval): judged at 15 and 30 fps too.
    /// - Parameters: milliseconds of CPU per captured frame (fold and gate), per
    ///   recognized frame (read-out, tracker), and of Tesseract's recognition.
    private func reportOverheadRatio(perCaptured: Double, readOut: Double, tracker: Double, recognize: Double) {
        let foldsPerSecond = 1000 / FrameStacker.fullStackInterval
        for (fps, label) in [(0.0, "one captured frame per recognition"), (15.0, "15 fps camera"), (30.0, "30 fps camera"),
                             (60.0, "60 fps camera")] {
            let folded = max(1, min(fps, foldsPerSecond) * recognize / 1000)
            let ratio = (folded * perCaptured + readOut + tracker) / recognize
            let judged = fps <= 30
            bench.report.add(section: "live", item: "1280x720 stacking + gate + tracks: added to the overhead ratio, \(label)",
                             value: "\(format(ratio, 4)) = (\(format(folded, 1)) folded × \(format(perCaptured, 3)) + read-out \(format(readOut, 3)) + tracker \(format(tracker, 3)) ms) / \(format(recognize, 1)) ms",
                             target: judged ? "≤ 0.03" : "", status: judged ? Report.check(ratio <= 0.03) : .info,
                             numbers: [("ratio", ratio), ("folded_per_recognition", folded)])
        }
    }

    /// Tesseract's CPU time for `image` (the overhead ratio's denominator): the
    /// recognition section's figure when it ran, else the median of 5 recognitions here.
    private func recognitionCPU(of image: GrayImage) -> Double? {
        if !bench.recognitionCPU720.isEmpty { return bench.recognitionCPU720.mean }
        var options = RecognizerOptions()
        options.layout = .tesseract  // Tesseract's own layout: what this section compares (the detector: section detector)
        options.downscale = .none
        // Tesseract runs on the recognizer's engine thread: its timings say what Recognize cost.
        guard let pool = try? RecognizerPool(count: 1, options: options) else { return nil }
        _ = try? pool.begin(slot: 0).recognize(image)
        var samples = Samples()
        for _ in 0..<5 {
            guard (try? pool.begin(slot: 0).recognize(image)) != nil else { return nil }
            samples.append(pool.lastTimings(slot: 0).recognizeCPUMilliseconds)
        }
        return samples.median
    }

    /// `image` moved by (dx, dy), edges repeated.
    static func moved(_ image: GrayImage, dx: Int, dy: Int) -> GrayImage {
        var out = GrayImage(width: image.width, height: image.height)
        for y in 0..<image.height {
            let sy = min(max(y - dy, 0), image.height - 1)
            for x in 0..<image.width { out[x, y] = image[min(max(x - dx, 0), image.width - 1), sy] }
        }
        return out
    }

    /// Runs the live measurement through the daemon twice: live, and per frame.
    private func throughDaemon() {
        let directory = FileManager.default.currentDirectoryPath
        let generator = directory + "/scripts/make-live-sequences.py", measure = directory + "/tests/live/measure.py"
        let lectord = Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("lectord").path ?? ""
        guard FileManager.default.isExecutableFile(atPath: lectord), FileManager.default.fileExists(atPath: generator) else {
            bench.report.note("live: needs lectord next to lector-bench and the source tree (scripts/make-live-sequences.py): daemon figures skipped")
            return
        }
        let temporary = NSTemporaryDirectory() + "lector-bench-live-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        guard Self.runProcess("/usr/bin/python3", [generator, temporary, "--fps", "15", "--scenes", "12"]).status == 0 else {
            bench.report.note("live: generating the sequences failed (python3-pil, python3-numpy?): daemon figures skipped")
            return
        }
        for (label, extra) in [("live", ""), ("--stack off --gate off", "--stack off --gate off")] {
            let json = temporary + "/figures.json"
            let result = Self.runProcess("/usr/bin/python3", [measure, lectord, temporary, "--fps", "15", "--json", json, "--extra-args", extra])
            guard let data = FileManager.default.contents(atPath: json),
                  let figures = try? JSONParser.parse(Array(data)) else {
                bench.report.note("live (\(label)): measurement failed, status \(result.status)")
                continue
            }
            for (key, value) in figures.objectValue ?? [] {
                let text = value.doubleValue.map { format($0, 3) } ?? JSONWriter.string(value)
                bench.report.add(section: "live", item: "\(label): \(key)", value: text,
                                 numbers: value.doubleValue.map { [("value", $0)] } ?? [])
            }
            try? FileManager.default.removeItem(atPath: json)
        }
    }

    static func runProcess(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (-1, "") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
