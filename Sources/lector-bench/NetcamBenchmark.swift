import Foundation
import Glibc
import Synchronization

/// Issue 47: lectord's CPU per network camera. One lectord (built beside the benchmark)
/// reads N cameras of `--netcam-url` (one URL each, `?camera=i` added: lectord refuses a
/// source given twice); once every camera has published a TEXT and `settleSeconds` more
/// have passed (read, stacked, settled, as tests/netcam waits), lectord's CPU over
/// `--netcam-seconds` is read from /proc, whole and per thread (summed by thread name),
/// beside `ffmpeg -threads 1` decoding the same URL alone over the same window.
struct NetcamBenchmark {
    let bench: Benchmark

    /// Why the section measured nothing.
    enum Failure: Error, CustomStringConvertible {
        case noURL
        case noLectord(String)
        case cannotStart(String, String)
        case neverStreamed(streaming: Int, cameras: Int, seconds: Double)
        case exited(Int32, said: String)

        var description: String {
            switch self {
            case .noURL: "no --netcam-url (e.g. rtsp://127.0.0.1:8554/cam)"
            case .noLectord(let path): "lectord is not built next to lector-bench (\(path)): run `swift build` first"
            case .cannotStart(let name, let why): "cannot start \(name): \(why)"
            case .neverStreamed(let streaming, let cameras, let seconds):
                "\(streaming) of \(cameras) cameras published a TEXT within \(Int(seconds)) s: does the camera stream?"
            case .exited(let status, let said): "lectord exited (status \(status)) before the measurement ended\(said.isEmpty ? "" : ": \(said)")"
            }
        }
    }

    /// Seconds to wait for every camera's first TEXT.
    static let streamTimeout = 180.0
    /// Seconds after the last camera's first TEXT before the window opens.
    static let settleSeconds = 10.0

    func run() {
        guard bench.options.netcamURL != nil || !bench.options.smoke else {
            bench.report.note("netcams: no --netcam-url in smoke mode: section skipped")
            return
        }
        do {
            try measure()
        } catch {
            bench.report.note("netcams: \(error)")
            bench.report.add(section: "netcams", item: "network cameras", value: "not available")
        }
    }

    private func measure() throws(Failure) {
        guard let url = bench.options.netcamURL else { throw .noURL }
        let executable = Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("lectord").path ?? "lectord"
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw .noLectord(executable) }
        let count = bench.options.netcams, seconds = bench.options.netcamSeconds
        let urls = count == 1 ? [url] : (1...count).map { url + (url.contains("?") ? "&" : "?") + "camera=\($0)" }
        // A fresh directory of our own (mode 0700, refused if the name exists): another local
        // user's directory or symlink under that name would have received lectord's socket
        // and a log written through its links.
        let directory = NSTemporaryDirectory() + "lector-bench-netcams-\(getpid())-\(UInt32.random(in: .min ... .max))"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotStart("its working directory \(directory)", "\(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Tesseract's layout, as scripts/netcam-four.py and tests/netcam run it.
        let arguments = ["--socket", directory + "/lector.sock", "--stdout", "--layout", "tesseract"] + urls.flatMap { ["--url", $0] }
        let output = Pipe()
        let log = directory + "/lectord.log"
        let lectord = try Self.start(executable, arguments, name: "lectord", output: output, log: log)
        let texts = TextTally()
        texts.follow(output)
        defer { Self.stop(lectord) }
        let decoder = Self.ffmpegPath().flatMap { path in
            try? Self.start(path, ["-nostdin", "-loglevel", "quiet", "-threads", "1"]
                            + (url.hasPrefix("rtsp") ? ["-rtsp_transport", "tcp"] : []) + ["-i", url, "-f", "null", "-"], name: "ffmpeg")
        }
        defer { decoder.map(Self.stop) }
        let waitStart = Clock.nanoseconds()
        while texts.devices().count < count {
            guard lectord.isRunning else { throw .exited(lectord.terminationStatus, said: Self.lastLine(log)) }
            guard Double(Clock.nanoseconds() - waitStart) / 1e9 < Self.streamTimeout else {
                throw .neverStreamed(streaming: texts.devices().count, cameras: count, seconds: Self.streamTimeout)
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        Thread.sleep(forTimeInterval: bench.options.smoke ? 1 : Self.settleSeconds)
        let pid = lectord.processIdentifier
        let before = (Self.processCPU(pid), Self.threadCPU(pid)), ffmpegBefore = decoder.flatMap { Self.processCPU($0.processIdentifier) }
        let textsBefore = texts.count(), lossesBefore = Self.losses(log)
        Thread.sleep(forTimeInterval: seconds)
        let after = (Self.processCPU(pid), Self.threadCPU(pid)), ffmpegAfter = decoder.flatMap { Self.processCPU($0.processIdentifier) }
        guard lectord.isRunning, let total0 = before.0, let total1 = after.0, let threads0 = before.1, let threads1 = after.1 else {
            throw .exited(lectord.isRunning ? 0 : lectord.terminationStatus, said: Self.lastLine(log))
        }
        var ffmpeg: Double?
        if let ffmpegBefore, let ffmpegAfter, decoder?.isRunning == true { ffmpeg = ffmpegAfter - ffmpegBefore }
        let window = Window(total: total1 - total0, threads: Self.difference(threads1, threads0), cameras: count, seconds: seconds,
                            texts: texts.count() - textsBefore, losses: Self.losses(log) - lossesBefore)
        report(window, ffmpeg: ffmpeg, haveFFmpeg: decoder != nil)
    }

    /// What lectord did over the measured window.
    struct Window {
        /// CPU seconds of the whole process (threads that ended in the window too).
        var total: Double
        var threads: ThreadCPU
        var cameras: Int
        var seconds: Double
        var texts: Int
        /// Cameras lost (and reconnected) in the window: a starved machine.
        var losses: Int
    }

    private func report(_ window: Window, ffmpeg: Double?, haveFFmpeg: Bool) {
        let (threads, cameras, seconds, texts) = (window.threads, window.cameras, window.seconds, window.texts)
        let perCamera = window.total / Double(cameras)
        let load = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").first.map(String.init) ?? "?"
        let named = threads.byName.filter { $0.value.seconds >= 0.01 }.sorted { $0.key < $1.key }
            .map { "\($0.key) ×\($0.value.threads) \(format($0.value.seconds))" }.joined(separator: ", ")
        bench.report.note("netcams: \(cameras) camera\(cameras == 1 ? "" : "s") of \(bench.options.netcamURL ?? ""), \(format(seconds, 0)) s from \(format(bench.options.smoke ? 1 : Self.settleSeconds, 0)) s after each published a TEXT, load average \(load); lectord's threads (name ×count CPU s): \(named)")
        if window.losses > 0 {
            bench.report.note("netcams: \(window.losses) camera loss\(window.losses == 1 ? "" : "es") in the window (lectord's log): the machine did not keep up")
        }
        bench.report.add(section: "netcams", item: "lectord, \(cameras) camera\(cameras == 1 ? "" : "s"): CPU over \(format(seconds, 0)) s",
                         value: "\(format(window.total)) s (\(format(window.total / seconds * 100, 1)) % of a core); \(texts) TEXT",
                         numbers: [("cameras", Double(cameras)), ("seconds", seconds), ("cpu_s", window.total),
                                   ("core_share", window.total / seconds), ("texts", Double(texts)), ("losses", Double(window.losses))])
        // Each camera's stream has a reader thread (lector-netcam: decoding) and a capture
        // thread (lector-capture: hand-over, stacking). A thread sometimes keeps the name
        // of the thread that made it (Linux copies it; Foundation's naming races), so the
        // two are summed, and only when each camera has one named (an ended thread's time is lost here).
        let path = ["lector-netcam", "lector-capture"].compactMap { threads.byName[$0] }
        let pathSeconds = path.reduce(0) { $0 + $1.seconds }, pathThreads = path.reduce(0) { $0 + $1.threads }
        let attributable = pathThreads >= cameras
        bench.report.add(section: "netcams", item: "lectord CPU per camera (total / \(cameras); its stream's threads)",
                         value: "\(format(perCamera)) s; " + (attributable
                            ? "\(format(pathSeconds / Double(cameras))) s decoding and hand-over (\(pathThreads) threads)"
                            : "stream threads not attributable (\(pathThreads) named for \(cameras) camera\(cameras == 1 ? "" : "s"))"),
                         numbers: [("cpu_per_camera_s", perCamera),
                                   ("stream_threads_cpu_per_camera_s", attributable ? pathSeconds / Double(cameras) : .nan)])
        guard let ffmpeg else {
            bench.report.note("netcams: \(haveFFmpeg ? "FFmpeg stopped before the window ended" : "no ffmpeg on PATH"): no decoding comparison")
            return
        }
        bench.report.add(section: "netcams", item: "FFmpeg decoding the stream alone (-threads 1), same window; lectord per camera / FFmpeg",
                         value: "\(format(ffmpeg)) s; \(format(perCamera / max(ffmpeg, 1e-9))) ×",
                         numbers: [("ffmpeg_cpu_s", ffmpeg), ("ratio_per_camera", perCamera / max(ffmpeg, 1e-9))])
    }

    // MARK: Processes

    private static func start(_ executable: String, _ arguments: [String], name: String, output: Pipe? = nil,
                              log: String? = nil) throws(Failure) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        if let log, FileManager.default.createFile(atPath: log, contents: nil), let handle = FileHandle(forWritingAtPath: log) {
            process.standardError = handle
        }
        do {
            try process.run()
        } catch {
            throw .cannotStart(name, "\(error)")
        }
        return process
    }

    private static func stop(_ process: Process) {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    private static func ffmpegPath() -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/ffmpeg" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    // MARK: CPU from /proc

    /// CPU seconds of a process's threads, summed by thread name, with each name's thread count.
    struct ThreadCPU {
        var byName: [String: (seconds: Double, threads: Int)] = [:]
        var total: Double { byName.values.reduce(0) { $0 + $1.seconds } }
    }

    /// /proc/PID/task/*/stat: user + system time of every live thread, by name; nil once the process is gone.
    static func threadCPU(_ pid: Int32) -> ThreadCPU? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var cpu = ThreadCPU()
        for task in tasks {
            guard let (name, seconds) = statCPU("/proc/\(pid)/task/\(task)/stat") else { continue }
            let previous = cpu.byName[name] ?? (0, 0)
            cpu.byName[name] = (previous.seconds + seconds, previous.threads + 1)
        }
        return cpu
    }

    /// /proc/PID/stat: user + system time of the whole process, ended threads included.
    static func processCPU(_ pid: Int32) -> Double? { statCPU("/proc/\(pid)/stat")?.seconds }

    /// A stat file's name and user + system seconds.
    private static func statCPU(_ path: String) -> (name: String, seconds: Double)? {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
        // After the name: state (field 3) … utime (14), stime (15).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (String(stat[stat.index(after: open)..<close]), (user + system) / Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// Why lectord stopped: the last line of its log that names an error, else its last line.
    private static func lastLine(_ log: String) -> String {
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        return String(lines.last { $0.hasPrefix("lectord:") || $0.hasPrefix("error:") } ?? lines.last ?? "")
    }

    /// How often lectord's log says a camera was lost so far.
    private static func losses(_ log: String) -> Int {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: "camera lost").count - 1
    }

    /// What each thread name cost between two readings (threads that ended are lost to both).
    static func difference(_ after: ThreadCPU, _ before: ThreadCPU) -> ThreadCPU {
        var cpu = ThreadCPU()
        for (name, value) in after.byName {
            cpu.byName[name] = (max(0, value.seconds - (before.byName[name]?.seconds ?? 0)), value.threads)
        }
        return cpu
    }

    /// The TEXT messages lectord writes to its standard output, counted by device.
    final class TextTally: Sendable {
        private let state = Mutex<(devices: Set<String>, count: Int)>(([], 0))

        func devices() -> Set<String> { state.withLock { $0.devices } }
        func count() -> Int { state.withLock { $0.count } }

        /// Reads `pipe` on a thread of its own until it closes.
        func follow(_ pipe: Pipe) {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                var pending = Data()
                while case let chunk = handle.availableData, !chunk.isEmpty {
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: 10) {
                        let line = pending[pending.startIndex..<newline]
                        pending.removeSubrange(pending.startIndex...newline)
                        guard line.starts(with: Data("{\"class\":\"TEXT\"".utf8)),
                              let message = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
                              let device = message["device"] as? String else { continue }
                        state.withLock { $0.devices.insert(device); $0.count += 1 }
                    }
                }
            }
        }
    }
}
