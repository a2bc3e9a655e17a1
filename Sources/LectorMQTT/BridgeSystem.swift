import Foundation
import Glibc

/// The bridge's calls into the C library (poll, a wake pipe, signals, the host name):
/// the only file of LectorMQTT that calls Glibc directly.
enum BridgeSystem {
    /// A pipe whose read end wakes the bridge's poll; both ends non-blocking, close-on-exec.
    static func wakePipe() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        // Cannot fail short of running out of descriptors at start-up.
        precondition(pipe(&ends) == 0, "pipe: \(String(cString: strerror(errno)))")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        return (ends[0], ends[1])
    }

    static func wake(_ descriptor: Int32) {
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
    }

    static func drain(_ descriptor: Int32) {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(descriptor, &bytes, bytes.count) > 0 {}
    }

    /// Which of `descriptors` are readable (or hung up) within `timeout` seconds.
    static func waitReadable(_ descriptors: [Int32], timeout: Double) -> [Bool] {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds = Int32(max(0, min(timeout, 3600)) * 1000)
        let ready = poll(&polled, nfds_t(polled.count), milliseconds)
        if ready <= 0 { return descriptors.map { _ in false } }
        return polled.map { $0.revents != 0 }
    }

    static func close(_ descriptor: Int32) { _ = Glibc.close(descriptor) }

    /// The machine's host name (uname's nodename).
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Blocks SIGINT and SIGTERM (and ignores SIGPIPE) in this and every later thread;
    /// call before any thread starts.
    static func blockStopSignals() {
        signal(SIGPIPE, SIG_IGN)
        var set = stopSignals()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts a thread that waits for SIGINT/SIGTERM and calls `handler` with the number.
    static func observeStopSignals(_ handler: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread {
            var set = stopSignals()
            while true {
                var received: Int32 = 0
                if sigwait(&set, &received) == 0 { handler(received) }
            }
        }
    }

    private static func stopSignals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    /// Resident set size and its peak of this process, in kB (/proc/self/status).
    static func memory() -> (rss: Int, peak: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        func value(_ key: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return nil }
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        guard let rss = value("VmRSS:"), let peak = value("VmHWM:") else { return nil }
        return (rss, peak)
    }
}
