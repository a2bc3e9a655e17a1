import CBenchReference
import Foundation
import Lector

/// Section 7: the program a user would write instead, pytesseract (which runs the
/// tesseract CLI per frame), on the same 1280x720 frame, interleaved frame by frame
/// with Lector's pipeline and the C loop. Two pytesseract variants: with
/// OMP_THREAD_LIMIT=1 (the thread fix) and with Tesseract's default threads.
struct PeerBenchmark {
    let bench: Benchmark

    /// A persistent `scripts/bench-pytesseract.py` worker: one line in (an image path),
    /// one line out (milliseconds and words).
    final class PythonWorker {
        let process = Process()
        private let input = Pipe(), output = Pipe()
        private var pending = Data()

        init?(python: String, script: String, threadLimit: Bool) {
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script]
            var environment = ProcessInfo.processInfo.environment
            if threadLimit { environment["OMP_THREAD_LIMIT"] = "1" } else { environment.removeValue(forKey: "OMP_THREAD_LIMIT") }
            process.environment = environment
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            do { try process.run() } catch { return nil }
        }

        /// Recognizes the image at `path`; returns the words, or nil if the worker failed.
        func recognize(_ path: String) -> [String]? {
            input.fileHandleForWriting.write(Data((path + "\n").utf8))
            while true {
                if let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    guard line.hasPrefix("ok ") else { return nil }
                    return line.dropFirst(3).split(separator: " ").map(String.init)
                }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return nil }
                pending.append(chunk)
            }
        }

        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    static let targetRatio = 6.0

    func run() {
        guard let frames = bench.frameSet("1280x720") ?? bench.frames.last else { return }
        let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let script = sourceRoot + "/scripts/bench-pytesseract.py"
        let candidates = [bench.options.python, sourceRoot + "/.build/bench-venv/bin/python3"].compactMap { $0 }
        guard let python = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }),
              FileManager.default.fileExists(atPath: script) else {
            bench.report.note("peer: no Python with pytesseract (run scripts/bench-peer-setup, or pass --python): section skipped")
            return
        }
        let path = NSTemporaryDirectory() + "lector-bench-peer-\(getpid()).pgm"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do { try BenchFrameSet.writePGM(frames.noisy, to: path) } catch {
            bench.report.note("peer: cannot write the frame: \(error)")
            return
        }
        guard let limited = PythonWorker(python: python, script: script, threadLimit: true),
              let unlimited = PythonWorker(python: python, script: script, threadLimit: false) else {
            bench.report.note("peer: cannot start \(python)")
            return
        }
        defer { limited.stop(); unlimited.stop() }
        guard let c = RecognitionComparison.CVariant(yuyv: false),
              let lector = try? RecognitionComparison.LectorVariant(format: .grey, downscale: .none, logger: bench.logger) else {
            bench.report.note("peer: Tesseract could not start")
            return
        }
        var limitedTimes = Samples(), unlimitedTimes = Samples()
        var peerWords: [String] = []
        // Warm up each (the first CLI run loads the model from a cold cache).
        guard limited.recognize(path) != nil, unlimited.recognize(path) != nil else {
            bench.report.note("peer: pytesseract failed (is the tesseract CLI installed? scripts/bench-peer-setup installs it): section skipped")
            return
        }
        c.step(frames, record: false)
        lector.step(frames, record: false)
        for _ in 0..<bench.options.peerRounds {
            c.step(frames, record: true)
            lector.step(frames, record: true)
            limitedTimes.append(Clock.milliseconds { peerWords = limited.recognize(path) ?? [] })
            unlimitedTimes.append(Clock.milliseconds { _ = unlimited.recognize(path) })
        }
        let name = frames.name
        for (label, times) in [("OMP_THREAD_LIMIT=1", limitedTimes), ("default threads", unlimitedTimes)] {
            let ratio = times.mean / lector.total.mean
            let cRatio = times.mean / c.total.mean
            bench.report.add(section: "peer", item: "\(name) pytesseract (\(label)) / Lector per frame",
                             value: "\(format(ratio, 2))× (pytesseract \(format(times.mean, 1)) ms, Lector \(format(lector.total.mean, 1)) ms, C loop \(format(c.total.mean, 1)) ms → \(format(cRatio, 2))× C; recall pytesseract \(format(frames.wordRecall(peerWords), 2)), Lector \(format(frames.wordRecall(lector.words), 2)))",
                             target: "≥ \(format(Self.targetRatio, 1))×", status: Report.check(ratio >= Self.targetRatio),
                             numbers: [("ratio_to_lector", ratio), ("ratio_to_c", cRatio), ("pytesseract_mean_ms", times.mean),
                                       ("lector_mean_ms", lector.total.mean), ("c_mean_ms", c.total.mean),
                                       ("rounds", Double(times.count))])
        }
    }
}
