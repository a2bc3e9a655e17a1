import Foundation
import Glibc
import LectorClient
import LectorProtocol
import LectorSystem

/// Section 6: lectord's resident memory, measured from outside on the real daemon
/// (`lectord --replay DIR --loop --stdout --max-frames N`, eng model, 640x480 frames,
/// lossless replay), after start-up, after 1,000 frames and after N.
struct MemoryBenchmark {
    let bench: Benchmark

    static let targetMegabytes = 120.0

    func run() {
        let executable = Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("lectord").path ?? ""
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            bench.report.note("memory: lectord is not built next to lector-bench (run `swift build -c release` first): section skipped")
            return
        }
        guard let frames = bench.frameSet("640x480") else { return }
        let directory = NSTemporaryDirectory() + "lector-bench-memory-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            try BenchFrameSet.writePGM(frames.noisy, to: directory + "/a-noisy.pgm")
            try BenchFrameSet.writePGM(frames.clean, to: directory + "/b-clean.pgm")
        } catch {
            bench.report.note("memory: cannot write frames: \(error)")
            return
        }
        let wanted = bench.options.memoryFrames
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        // Every frame recognized and published: with live text on, the loop's two frames
        // of one scene settle and the change gate then skips them (one read per refresh),
        // so N published frames would take N refreshes. Tesseract's layout: the memory
        // target predates the detector (whose memory README reports).
        process.arguments = ["--replay", directory, "--loop", "--stdout", "--stack", "off", "--gate", "off",
                             "--max-frames", String(wanted), "--layout", "tesseract"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            bench.report.note("memory: cannot start lectord: \(error)")
            return
        }
        let pid = process.processIdentifier
        let started = Clock.nanoseconds()
        let checkpoints = Set([1, 100, 1000, 2000, 5000, 10_000, wanted].filter { $0 <= wanted })
        var samples: [(frames: Int, megabytes: Double, seconds: Double)] = []
        var published = 0
        var pending = Data()
        let handle = pipe.fileHandleForReading
        reading: while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 10) {
                let line = pending[pending.startIndex..<newline]
                pending.removeSubrange(pending.startIndex...newline)
                guard line.starts(with: Data("{\"class\":\"FRAME\"".utf8)) else { continue }
                published += 1
                if checkpoints.contains(published), let megabytes = Self.residentMegabytes(pid: pid) {
                    samples.append((published, megabytes, Double(Clock.nanoseconds() - started) / 1e9))
                }
                if published >= wanted { break reading }
            }
        }
        let peak = Self.statusMegabytes(pid: pid, field: "VmHWM:")
        process.waitUntilExit()
        guard let first = samples.first, let last = samples.last else {
            bench.report.note("memory: lectord published no frames (exit status \(process.terminationStatus))")
            return
        }
        let perFrame = samples.count > 1 ? (last.seconds - first.seconds) / Double(max(1, last.frames - first.frames)) * 1000 : .nan
        for sample in samples {
            bench.report.add(section: "memory", item: "lectord RSS after \(sample.frames) frame\(sample.frames == 1 ? " (start-up)" : "s")",
                             value: "\(format(sample.megabytes, 1)) MB",
                             target: "≤ \(Int(Self.targetMegabytes)) MB", status: Report.check(sample.megabytes <= Self.targetMegabytes),
                             numbers: [("frames", Double(sample.frames)), ("rss_mb", sample.megabytes), ("seconds", sample.seconds)])
        }
        guard last.frames >= 100 else { return }
        let growth = last.megabytes - (samples.first { $0.frames >= 100 } ?? first).megabytes
        bench.report.add(section: "memory", item: "growth from 100 to \(last.frames) frames; peak RSS",
                         value: "\(format(growth, 1)) MB; peak \(peak.map { format($0, 1) } ?? "-") MB; \(format(perFrame, 1)) ms per frame",
                         target: "no growth (≤ 2 MB)", status: last.frames >= 1000 ? Report.check(growth <= 2) : .info,
                         numbers: [("growth_mb", growth), ("peak_mb", peak ?? .nan), ("ms_per_frame", perFrame)])
    }

    static func residentMegabytes(pid: Int32) -> Double? { statusMegabytes(pid: pid, field: "VmRSS:") }

    /// A `kB` field of /proc/PID/status, in MB (10^6 bytes).
    static func statusMegabytes(pid: Int32, field: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024 / 1e6
    }
}
