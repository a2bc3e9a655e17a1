import CBenchReference
import Foundation
import Glibc
import LectorClient
import LectorPipeline
import LectorProtocol
import LectorServer
import LectorSystem
import Synchronization

/// Section 5: lectord's socket server (`SocketServer`, as the daemon runs it) publishing a
/// real 1280x720 result to 1, 16, 64 and 256 subscribers connected to its Unix socket,
/// each with the default `{"class":"WATCH"}` (TEXT at word level, and FRAME); beside it,
/// the floor: a minimal C fan-out (`bench_reference_fan_out`, one send per subscriber)
/// of the same two lines over `socketpair()` sockets.
struct FanOutBenchmark {
    let bench: Benchmark

    /// Issue 15: at 256 subscribers, the server's CPU per message and its publish p50
    /// against the minimal C fan-out's in the same run.
    static let cpuRatioTarget = 1.3
    static let p50RatioTarget = 1.2
    /// Messages per second, as a camera at 50 fps with instant recognition would publish.
    static let rate = 50
    /// The subscribers' buffer in the server (`client_buffer`), small so that the stalled
    /// subscriber overflows within the run.
    static let clientBuffer = 64 * 1024

    /// When each message was published, read by the reader thread.
    final class PublishTimes: Sendable {
        private let starts = Mutex<[Int64]>([])
        func append(_ value: Int64) { starts.withLock { $0.append(value) } }
        subscript(index: Int) -> Int64? { starts.withLock { index < $0.count ? $0[index] : nil } }
    }

    private struct Result {
        /// From the publish call to the lines written to every subscriber's socket: the
        /// server's STATUS `publish_ms`, or the C call's duration.
        var publish: (p50: Double, p99: Double) = (0, 0)
        /// Publish call to arrival at the reader, at the first and the last subscriber.
        var first = Samples(), last = Samples()
        /// What the last subscriber waited beyond the first, per message, at the reader.
        var spread = Samples()
        /// CPU time per message of the publishing side (server thread, or the C call).
        var cpuPerMessage = 0.0
        var lost = 0
        /// The stalled subscriber's lines dropped, from its last OVERFLOW notice.
        var stalledDropped = 0
    }

    func run() {
        guard let frames = bench.frameSet("1280x720") ?? bench.frames.last,
              let publication = Benchmark.publication(of: frames.noisy) else {
            bench.report.note("fan-out: Tesseract could not start; section skipped")
            return
        }
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let lines = publication.textLine + [10] + publication.frame.message.bytes + [10]
        bench.report.note("fan-out: lectord's SocketServer on a Unix socket; each subscriber sends the default WATCH and gets the \(frames.name) TEXT and FRAME lines (\(lines.count) bytes) of every message; \(Self.rate) messages per second; client_buffer \(Self.clientBuffer / 1024) KB; one reader thread polls every subscriber. Beside it, a minimal C fan-out of the same bytes over socketpair() sockets")
        for count in [1, 16, 64, 256] {
            let floor: Result, server: Result
            do {
                floor = try measureC(subscribers: count, lines: lines)
                server = try measureServer(subscribers: count, stalled: false, publication: publication, messageBytes: lines.count)
            } catch {
                bench.report.note("fan-out with \(count) subscribers: \(error)")
                continue
            }
            add(server, subscribers: count, stalled: false, floor: floor)
        }
        do {
            add(try measureServer(subscribers: 256, stalled: true, publication: publication, messageBytes: lines.count), subscribers: 256, stalled: true, floor: nil)
        } catch {
            bench.report.note("fan-out with a stalled subscriber: \(error)")
        }
    }

    private func add(_ result: Result, subscribers count: Int, stalled: Bool, floor: Result?) {
        var target = "", status = Report.Status.info
        if count == 256, let floor {
            target = "server CPU ≤ \(format(Self.cpuRatioTarget, 1))× and publish p50 ≤ \(format(Self.p50RatioTarget, 1))× the C floor's, none lost"
            status = Report.check(result.cpuPerMessage <= Self.cpuRatioTarget * floor.cpuPerMessage
                                  && result.publish.p50 <= Self.p50RatioTarget * floor.publish.p50 && result.lost == 0)
        } else if count == 256 {
            target = "none lost by the others"
            status = Report.check(result.lost == 0)
        }
        var value = "p50 \(format(result.publish.p50, 3)) ms, p99 \(format(result.publish.p99, 3)) ms"
        var numbers: [(String, Double)] = [("publish_p50_ms", result.publish.p50), ("publish_p99_ms", result.publish.p99)]
        if let floor {
            value += " (minimal C fan-out p50 \(format(floor.publish.p50, 3)) ms, p99 \(format(floor.publish.p99, 3)) ms)"
            numbers += [("c_publish_p50_ms", floor.publish.p50), ("c_publish_p99_ms", floor.publish.p99),
                        ("c_cpu_ms_per_message", floor.cpuPerMessage),
                        ("cpu_ratio_to_c", result.cpuPerMessage / max(floor.cpuPerMessage, 1e-9)),
                        ("publish_p50_ratio_to_c", result.publish.p50 / max(floor.publish.p50, 1e-9))]
            value += " = \(format(result.publish.p50 / max(floor.publish.p50, 1e-9), 2))× p50"
        }
        value += "; at the reader: last beyond first p50 \(format(result.spread.median, 3)) ms, p99 \(format(result.spread.p99, 3)) ms, publish→last p99 \(format(result.last.p99, 3)) ms; server CPU \(format(result.cpuPerMessage * 1000, 0)) µs/message\(floor.map { " (C \(format($0.cpuPerMessage * 1000, 0)) = \(format(result.cpuPerMessage / max($0.cpuPerMessage, 1e-9), 2))×)" } ?? ""); lines lost by readers \(result.lost)\(stalled ? "; dropped for the stalled one \(result.stalledDropped)" : "")"
        numbers += [("reader_added_p50_ms", result.spread.median), ("reader_added_p99_ms", result.spread.p99),
                    ("reader_last_p50_ms", result.last.median), ("reader_last_p99_ms", result.last.p99),
                    ("server_cpu_ms_per_message", result.cpuPerMessage),
                    ("lost", Double(result.lost)), ("stalled_dropped", Double(result.stalledDropped)),
                    ("messages", Double(result.last.count))]
        bench.report.add(section: "fan-out",
                         item: "\(count) subscriber\(count == 1 ? "" : "s")\(stalled ? " (1 stalled)" : ""): lectord publish → written to all",
                         value: value, target: target, status: status, numbers: numbers)
    }

    /// - Parameter messageBytes: what the server sends each subscriber per publication
    ///   (its TEXT and FRAME lines).
    private func measureServer(subscribers count: Int, stalled: Bool, publication: Publication, messageBytes: Int) throws -> Result {
        let directory = NSTemporaryDirectory() + "lector-bench-fanout-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/lector.sock"
        var configuration = SocketServer.Configuration()
        configuration.maximumClients = count + 1  // and one to ask STATUS
        configuration.clientBufferBytes = Self.clientBuffer
        let server = try SocketServer(listener: try ListeningSocket.bind(path: path, group: nil),
                                      hub: CameraHub(cameras: [], alwaysOn: false, logger: bench.logger),
                                      configuration: configuration, logger: bench.logger)
        server.start()
        defer { server.shutdown() }

        var subscribers: [LectorConnection] = []
        for _ in 0..<count {
            let subscriber = try LectorConnection(path: path)
            try subscriber.send(Request.watch(WatchRequest()))
            subscribers.append(subscriber)
        }
        // VERSION on connect, then DEVICES and WATCH: after these, every line is streamed.
        for subscriber in subscribers { _ = try subscriber.read(WatchMessage.self, timeout: 5) }
        // The stalled subscriber connected first, so the server writes to it first.
        let readers = stalled ? Array(subscribers.dropFirst()) : subscribers
        // The connections own their descriptors: keep them open while the reader polls.
        var result = try withExtendedLifetime(subscribers) {
            try measure(readers.map(\.descriptor), messageBytes: messageBytes) { server.publish(publication) }
        }
        let status = try LectorConnection(path: path)
        try status.send(Request.status)
        guard let publish = try status.read(StatusMessage.self, timeout: 5).publishMilliseconds else {
            throw BenchFailure("STATUS has no publish_ms")
        }
        result.publish = (publish.p50, publish.p99)
        if stalled { result.stalledDropped = subscribers[0].droppedTotal() }
        return result
    }

    private func measureC(subscribers count: Int, lines: [UInt8]) throws -> Result {
        var publisherEnds: [Int32] = [], readerEnds: [Int32] = []
        defer { (publisherEnds + readerEnds).forEach { _ = Glibc.close($0) } }
        for _ in 0..<count {
            var pair: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else {
                throw BenchFailure("socketpair: errno \(errno)")
            }
            publisherEnds.append(pair[0])
            readerEnds.append(pair[1])
        }
        var durations = Samples()
        var result = try measure(readerEnds, messageBytes: lines.count) {
            let start = Clock.nanoseconds()
            _ = bench_reference_fan_out(publisherEnds, Int32(count), lines, lines.count)
            durations.append(Double(Clock.nanoseconds() - start) / 1e6)
        }
        result.publish = (durations.median, durations.p99)
        return result
    }

    /// Publishes ``BenchOptions/fanOutMessages`` messages at ``rate`` while one thread
    /// reads `readers`.
    private func measure(_ readers: [Int32], messageBytes: Int, publish: () -> Void) throws -> Result {
        let messages = bench.options.fanOutMessages
        let times = PublishTimes()
        let outcome = Mutex<(first: [Double], last: [Double], lost: Int, cpu: Double)>(([], [], 0, 0))
        let readerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Self.readAll(readers, messages: messages, messageBytes: messageBytes, times: times)
            outcome.withLock { $0 = result }
            readerDone.signal()
        }
        let processCPU = Clock.processCPUSeconds(), wallStart = Clock.nanoseconds()
        for index in 0..<messages {
            times.append(Clock.nanoseconds())
            publish()
            // On an absolute schedule.
            let next = wallStart + Int64(index + 1) * 1_000_000_000 / Int64(Self.rate)
            let wait = next - Clock.nanoseconds()
            if wait > 0 { Thread.sleep(forTimeInterval: Double(wait) / 1e9) }
        }
        let finished = readerDone.wait(timeout: .now() + 10) == .success
        let cpu = Clock.processCPUSeconds() - processCPU
        let measured = outcome.withLock { $0 }
        var result = Result()
        result.first = Samples(measured.first)
        result.last = Samples(measured.last)
        result.spread = Samples(zip(measured.last, measured.first).map { $0 - $1 })
        result.lost = finished ? measured.lost : messages * readers.count
        // The publishing side: everything but the reader (the pacing thread only sleeps).
        result.cpuPerMessage = (cpu - measured.cpu) * 1000 / Double(messages)
        return result
    }

    /// Reads every subscriber with poll(); per message, the time from its publish to
    /// its arrival (its last byte) at the first and at the last subscriber. Every message
    /// is the same `messageBytes` bytes.
    private static func readAll(_ descriptors: [Int32], messages: Int, messageBytes: Int, times: PublishTimes)
        -> (first: [Double], last: [Double], lost: Int, cpu: Double) {
        let cpuStart = Clock.nanoseconds(CLOCK_THREAD_CPUTIME_ID)
        var received = [Int](repeating: 0, count: descriptors.count)
        var firstArrival = [Int64](repeating: .max, count: messages)
        var lastArrival = [Int64](repeating: 0, count: messages)
        var remaining = [Int](repeating: descriptors.count, count: messages)
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let total = messages * messageBytes
        let deadline = Clock.nanoseconds() + Int64(messages) * 1_000_000_000 / Int64(rate) + 5_000_000_000
        var open = descriptors.count
        while open > 0 && Clock.nanoseconds() < deadline {
            guard poll(&fds, nfds_t(fds.count), 100) > 0 else { continue }
            for index in fds.indices where fds[index].revents != 0 && received[index] < total {
                let count = buffer.withUnsafeMutableBytes { recv(fds[index].fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                let now = Clock.nanoseconds()
                guard count > 0 else {
                    if count == 0 { fds[index].events = 0; open -= 1 }  // closed by the server
                    continue
                }
                let before = received[index] / messageBytes
                received[index] += count
                for message in before..<min(messages, received[index] / messageBytes) {
                    firstArrival[message] = min(firstArrival[message], now)
                    lastArrival[message] = max(lastArrival[message], now)
                    remaining[message] -= 1
                }
                if received[index] >= total {
                    fds[index].events = 0
                    open -= 1
                }
            }
        }
        var first: [Double] = [], last: [Double] = []
        for message in 0..<messages where remaining[message] == 0 {
            guard let start = times[message] else { continue }
            first.append(Double(firstArrival[message] - start) / 1e6)
            last.append(Double(lastArrival[message] - start) / 1e6)
        }
        let lost = received.reduce(0) { $0 + max(0, total - $1) } / messageBytes
        return (first, last, lost, Double(Clock.nanoseconds(CLOCK_THREAD_CPUTIME_ID) - cpuStart) / 1e9)
    }
}

extension LectorConnection {
    /// Reads what the server sends until it pauses; returns the `dropped_total` of the
    /// last OVERFLOW notice.
    func droppedTotal() -> Int {
        var dropped = 0
        while let message = try? receive(timeout: 0.2).message {
            if case let .overflow(overflow) = message { dropped = overflow.droppedTotal }
        }
        return dropped
    }
}

/// A benchmark step that could not run.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
