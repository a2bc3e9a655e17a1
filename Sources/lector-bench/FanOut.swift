import Foundation
import Glibc
import Lector
import Synchronization

/// What the fan-out section needs from a publisher: hand one encoded line to every
/// subscriber, without ever waiting for one. The socket server (branch `server`) can
/// stand behind this; until it is merged, ``BenchFanOut`` does.
protocol LineFanOut: AnyObject {
    /// Publishes `line` (newline included) to every subscriber; never blocks.
    func publish(_ line: [UInt8])
}

/// The benchmark's own minimal fan-out over real Unix sockets, labelled as such in the
/// table: each subscriber has a non-blocking socket and a bounded queue (a high
/// watermark, as swift-nio's and gpsd's); a subscriber that does not read has lines
/// dropped once its queue is full, and never slows the others.
final class BenchFanOut: LineFanOut {
    struct Subscriber {
        let descriptor: Int32
        var pending: [UInt8] = []
        var dropped = 0
    }

    /// Bytes a subscriber may have queued beyond its socket buffer.
    static let highWatermark = 64 * 1024

    private(set) var subscribers: [Subscriber]

    init(descriptors: [Int32]) {
        subscribers = descriptors.map { Subscriber(descriptor: $0) }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
    }

    func publish(_ line: [UInt8]) {
        for index in subscribers.indices {
            if subscribers[index].pending.isEmpty {
                let written = Self.send(subscribers[index].descriptor, line[...])
                if written < line.count { subscribers[index].pending.append(contentsOf: line[written...]) }
            } else {
                flush(index)
                if subscribers[index].pending.count + line.count > Self.highWatermark {
                    subscribers[index].dropped += 1
                } else {
                    subscribers[index].pending.append(contentsOf: line)
                    flush(index)
                }
            }
        }
    }

    var droppedLines: [Int] { subscribers.map(\.dropped) }

    private func flush(_ index: Int) {
        let written = Self.send(subscribers[index].descriptor, subscribers[index].pending[...])
        if written > 0 { subscribers[index].pending.removeFirst(written) }
    }

    /// Bytes written (0 when the socket is full).
    private static func send(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Int {
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if result < 0 {
                if errno == EINTR { continue }
                return offset  // EAGAIN: full; EPIPE and others: the subscriber is gone
            }
            offset += result
        }
        return offset
    }
}

/// Section 5: publish to 1, 16, 64, 256 subscribers over real Unix sockets.
struct FanOutBenchmark {
    let bench: Benchmark

    /// The time each message's publish began, read by the reader thread.
    final class PublishTimes: @unchecked Sendable {
        private let lock = NSLock()
        private var starts: [Int64] = []
        func append(_ value: Int64) { lock.lock(); starts.append(value); lock.unlock() }
        subscript(index: Int) -> Int64? {
            lock.lock()
            defer { lock.unlock() }
            return index < starts.count ? starts[index] : nil
        }
    }

    func run() {
        var line = bench.sampleLines
        if line.isEmpty {
            line = Array(repeating: UInt8(ascii: "x"), count: 2500) + [10]
            bench.report.note("fan-out: no recognized 720p TEXT line available (stages section not run); used a 2.5 KB dummy line")
        }
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        bench.report.note("fan-out: the benchmark's own minimal non-blocking fan-out over socketpair() Unix sockets (BenchFanOut), the socket server not being merged yet; \(line.count)-byte TEXT+FRAME lines at 50 per second")
        var baseline256: Samples?
        for (count, stalled) in [(1, false), (16, false), (64, false), (256, false), (256, true)] {
            guard let result = measure(subscribers: count, stalled: stalled, line: line) else { continue }
            let stalledText = stalled ? " with 1 stalled" : ""
            var target = "", status = Report.Status.info
            if count == 256 && !stalled {
                target = "≤ 1 ms p99"
                status = Report.check(result.publish.p99 <= 1)
                baseline256 = result.delivery
            }
            if stalled {
                // Others unaffected: none of their lines lost, their median delivery as without the stalled one.
                target = "others unaffected"
                let unaffected = result.lost == 0
                    && (baseline256.map { result.delivery.median <= max($0.median * 1.5, $0.median + 0.5) } ?? true)
                status = Report.check(unaffected)
            }
            bench.report.add(
                section: "fan-out", item: "\(count) subscriber\(count == 1 ? "" : "s")\(stalledText) (bench fan-out)",
                value: "publish call p50 \(format(result.publish.median, 3)) ms, p99 \(format(result.publish.p99, 3)) ms; delivery to all p50 \(format(result.delivery.median, 2)) ms, p99 \(format(result.delivery.p99, 2)) ms; publisher CPU \(format(result.cpuPerMessage * 1000, 1)) µs/msg, process CPU \(format(result.cpuPercent, 1))%; lines lost by readers \(result.lost)\(stalled ? ", dropped for the stalled one \(result.stalledDropped)" : "")",
                target: target, status: status,
                numbers: [("publish_p50_ms", result.publish.median), ("publish_p99_ms", result.publish.p99),
                          ("delivery_p50_ms", result.delivery.median), ("delivery_p99_ms", result.delivery.p99),
                          ("publisher_cpu_ms_per_message", result.cpuPerMessage), ("process_cpu_percent", result.cpuPercent),
                          ("lost", Double(result.lost)), ("stalled_dropped", Double(result.stalledDropped))])
        }
    }

    private struct Result {
        var publish: Samples
        var delivery: Samples
        var cpuPerMessage: Double
        var cpuPercent: Double
        var lost: Int
        var stalledDropped: Int
    }

    private func measure(subscribers count: Int, stalled: Bool, line: [UInt8]) -> Result? {
        var publisherEnds: [Int32] = [], readerEnds: [Int32] = []
        defer { (publisherEnds + readerEnds).forEach { _ = close($0) } }
        for _ in 0..<count {
            var pair: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else {
                bench.report.note("fan-out with \(count) subscribers: socketpair failed (errno \(errno))")
                return nil
            }
            publisherEnds.append(pair[0])
            readerEnds.append(pair[1])
        }
        let messages = bench.options.fanOutMessages
        // The stalled subscriber is the first: it is written to first, so it would delay everyone if it could.
        let read = stalled ? Array(readerEnds.dropFirst()) : readerEnds
        let times = PublishTimes()
        let delivery = Mutex<[Double]>([])
        let lost = Mutex(0)
        let readerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Self.readAll(read, messages: messages, lineLength: line.count, times: times, delivery: delivery, lost: lost)
            readerDone.signal()
        }
        let fanOut = BenchFanOut(descriptors: publisherEnds)
        var publish = Samples()
        var cpu = 0.0
        let processCPU = Clock.processCPUSeconds(), wallStart = Clock.nanoseconds()
        for index in 0..<messages {
            let start = Clock.nanoseconds(), cpuStart = Clock.nanoseconds(CLOCK_THREAD_CPUTIME_ID)
            times.append(start)
            fanOut.publish(line)
            publish.append(Double(Clock.nanoseconds() - start) / 1e6)
            cpu += Double(Clock.nanoseconds(CLOCK_THREAD_CPUTIME_ID) - cpuStart) / 1e6
            // 50 messages per second, on an absolute schedule.
            let next = wallStart + Int64(index + 1) * 20_000_000
            let wait = next - Clock.nanoseconds()
            if wait > 0 { Thread.sleep(forTimeInterval: Double(wait) / 1e9) }
        }
        let finished = readerDone.wait(timeout: .now() + 10) == .success
        let wall = Double(Clock.nanoseconds() - wallStart) / 1e9
        let cpuPercent = (Clock.processCPUSeconds() - processCPU) / wall * 100
        return Result(publish: publish, delivery: Samples(delivery.withLock { $0 }), cpuPerMessage: cpu / Double(messages),
                      cpuPercent: cpuPercent, lost: lost.withLock { $0 } + (finished ? 0 : 1),
                      stalledDropped: stalled ? fanOut.droppedLines[0] : 0)
    }

    /// Reads every subscriber with poll(); records, per message, the time from its
    /// publish to its arrival at the last subscriber.
    private static func readAll(_ descriptors: [Int32], messages: Int, lineLength: Int, times: PublishTimes,
                                delivery: borrowing Mutex<[Double]>, lost: borrowing Mutex<Int>) {
        var received = [Int](repeating: 0, count: descriptors.count)  // bytes per subscriber
        var arrivals = [Int64](repeating: 0, count: messages)  // latest arrival per message
        var remaining = [Int](repeating: descriptors.count, count: messages)
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let total = messages * lineLength
        let deadline = Clock.nanoseconds() + Int64(messages) * 20_000_000 + 5_000_000_000
        var open = descriptors.count
        while open > 0 && Clock.nanoseconds() < deadline {
            let ready = poll(&fds, nfds_t(fds.count), 100)
            if ready <= 0 { continue }
            let now = Clock.nanoseconds()
            for index in fds.indices where fds[index].revents != 0 && received[index] < total {
                let count = buffer.withUnsafeMutableBytes { recv(fds[index].fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                guard count > 0 else { continue }
                let before = received[index] / lineLength
                received[index] += count
                let after = min(messages, received[index] / lineLength)
                for message in before..<after {
                    arrivals[message] = max(arrivals[message], now)
                    remaining[message] -= 1
                }
                if received[index] >= total {
                    fds[index].events = 0
                    open -= 1
                }
            }
        }
        var values: [Double] = []
        for message in 0..<messages where remaining[message] == 0 {
            if let start = times[message] { values.append(Double(arrivals[message] - start) / 1e6) }
        }
        delivery.withLock { $0 = values }
        lost.withLock { $0 = received.reduce(0) { $0 + (total - $1) } / lineLength }
    }
}
