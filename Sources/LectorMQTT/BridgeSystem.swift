import Foundation
import LectorSystem

/// The bridge's process-level needs, through LectorSystem's seam: a wake event for its
/// poll, waiting, the host name, stop signals and its memory.
enum BridgeSystem {
    /// An eventfd that wakes the bridge's poll (non-blocking, close-on-exec). Cannot
    /// fail short of running out of descriptors at start-up.
    static func wakeEvent() -> Int32 {
        do { return try Syscalls.wakeEvent() } catch { preconditionFailure("eventfd: \(error)") }
    }

    /// Which of `descriptors` are readable (or hung up) within `timeout` seconds.
    static func waitReadable(_ descriptors: [Int32], timeout: Double) -> [Bool] {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds = Int32(max(0, min(timeout, 3600)) * 1000)
        guard let ready = try? Syscalls.poll(&polled, timeoutMilliseconds: milliseconds), ready > 0 else {
            return descriptors.map { _ in false }
        }
        return polled.map { $0.revents != 0 }
    }

    /// The machine's host name.
    static func hostName() -> String { Syscalls.hostName() ?? "localhost" }

    /// Blocks SIGINT and SIGTERM (and ignores SIGPIPE) in this and every later thread;
    /// call before any thread starts.
    static func blockStopSignals() {
        Syscalls.ignoreBrokenPipeSignal()
        Syscalls.blockSignals([SIGINT, SIGTERM])
    }

    /// Starts a thread that waits for SIGINT/SIGTERM and calls `handler` with the number.
    static func observeStopSignals(_ handler: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread {
            while true { handler(Syscalls.waitForSignal([SIGINT, SIGTERM])) }
        }
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
