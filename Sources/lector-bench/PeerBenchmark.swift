import CBenchReference
import Foundation
import LectorClient
import LectorProtocol
import LectorRecognition
import LectorSystem

/// Section 7: the program a user would write instead, pytesseract (which runs the
/// tesseract CLI per frame), on the same 1280x720 frame, interleaved frame by frame
/// with Lector's pipeline and the C loop; with OMP_THREAD_LIMIT=1 (the thread fix) and
/// with Tesseract's default threads. Two inputs: the camera frame as a webcam loop has
/// it (RGB in memory, from OpenCV; pytesseract writes it as PNG), against Lector on the
/// camera's YUYV; and, most favourable to pytesseract, a gray PGM file, against Lector
/// on GREY.
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

        /// Answers one request of `scripts/bench-pytesseract.py`; returns the words, or nil
        /// if the worker failed.
        func recognize(_ request: String) -> [String]? {
            input.fileHandleForWriting.write(Data((request + "\n").utf8))
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
        let stem = NSTemporaryDirectory() + "lector-bench-peer-\(getpid())"
        let path = stem + ".pgm", rgbPath = stem + ".rgb"
        defer { [path, rgbPath].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        do {
            try BenchFrameSet.writePGM(frames.noisy, to: path)
            try Data(BenchFrameSet.colour(frames.noisy, seed: UInt64(frames.width))).write(to: URL(fileURLWithPath: rgbPath))
        } catch {
            bench.report.note("peer: cannot write the frame: \(error)")
            return
        }
        let cameraFrame = "rgb \(frames.width) \(frames.height) \(rgbPath)"
        guard let limited = PythonWorker(python: python, script: script, threadLimit: true),
              let unlimited = PythonWorker(python: python, script: script, threadLimit: false) else {
            bench.report.note("peer: cannot start \(python)")
            return
        }
        defer { limited.stop(); unlimited.stop() }
        let shipped = RecognizerOptions().downscale
        guard let c = RecognitionComparison.CVariant(yuyv: false),
              let lectorGrey = try? RecognitionComparison.LectorVariant(format: .grey, downscale: shipped, logger: bench.logger),
              let lectorCamera = try? RecognitionComparison.LectorVariant(format: .yuyv, downscale: shipped, logger: bench.logger) else {
            bench.report.note("peer: Tesseract could not start")
            return
        }
        struct Peer {
            let label: String
            let worker: PythonWorker
            let request: String
            let lector: RecognitionComparison.LectorVariant
            let judged: Bool
            var times = Samples()
            var words: [String] = []
        }
        var peers = [
            Peer(label: "camera frame (RGB in memory, as PNG), OMP_THREAD_LIMIT=1 / Lector on YUYV", worker: limited, request: cameraFrame, lector: lectorCamera, judged: true),
            Peer(label: "camera frame (RGB in memory, as PNG), default threads / Lector on YUYV", worker: unlimited, request: cameraFrame, lector: lectorCamera, judged: true),
            Peer(label: "gray PGM file, OMP_THREAD_LIMIT=1 / Lector on GREY", worker: limited, request: path, lector: lectorGrey, judged: false),
            Peer(label: "gray PGM file, default threads / Lector on GREY", worker: unlimited, request: path, lector: lectorGrey, judged: false),
        ]
        // Warm up each (the first CLI run loads the model from a cold cache).
        for peer in peers where peer.worker.recognize(peer.request) == nil {
            bench.report.note("peer: pytesseract failed (is the tesseract CLI installed? scripts/bench-peer-setup installs it): section skipped")
            return
        }
        for variant in [lectorGrey, lectorCamera] { variant.step(frames, record: false) }
        c.step(frames, record: false)
        for _ in 0..<bench.options.peerRounds {
            c.step(frames, record: true)
            lectorGrey.step(frames, record: true)
            lectorCamera.step(frames, record: true)
            for index in peers.indices {
                var words: [String] = []
                peers[index].times.append(Clock.milliseconds { words = peers[index].worker.recognize(peers[index].request) ?? [] })
                peers[index].words = words
            }
        }
        let name = frames.name
        for peer in peers {
            let lector = peer.lector.total.mean
            let ratio = peer.times.mean / lector
            let cRatio = peer.times.mean / c.total.mean
            bench.report.add(section: "peer", item: "\(name) pytesseract on a \(peer.label), per frame",
                             value: "\(format(ratio, 2))× (pytesseract \(format(peer.times.mean, 1)) ms, Lector \(format(lector, 1)) ms, C loop on GREY \(format(c.total.mean, 1)) ms → \(format(cRatio, 2))× C; recall pytesseract \(format(frames.wordRecall(peer.words), 2)), Lector \(format(frames.wordRecall(peer.lector.words), 2)))",
                             target: peer.judged ? "≥ \(format(Self.targetRatio, 1))×" : "",
                             status: peer.judged ? Report.check(ratio >= Self.targetRatio) : .info,
                             numbers: [("ratio_to_lector", ratio), ("ratio_to_c", cRatio), ("pytesseract_mean_ms", peer.times.mean),
                                       ("lector_mean_ms", lector), ("c_mean_ms", c.total.mean),
                                       ("rounds", Double(peer.times.count))])
        }
    }
}
