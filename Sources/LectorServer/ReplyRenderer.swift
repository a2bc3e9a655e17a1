import Foundation
import LectorProtocol
import LectorSystem
import Synchronization

/// Renders heavy replies (SNAPSHOT: a JPEG of up to 64 megapixels, Base64 in a JSON
/// line; HISTORY: a query of the history's database) on a thread of its own, so that
/// the server thread only hands the job over and later queues the finished line:
/// watchers' TEXT is never held up by a JPEG encoder or a disk.
///
/// Lines are cached by what they depend on (device, frame sequence, request), so
/// clients asking for the same snapshot of the same frame share one rendering and one
/// encoded line. The queue holds at most one job per client (a client's next request
/// waits for its reply), so it is bounded by the client cap.
final class ReplyRenderer: Sendable {
    /// What a reply depends on: the same key gives the same line.
    struct Key: Hashable, Sendable {
        var device: String
        var sequence: UInt32
        var request: String
    }

    /// One reply to render for one client.
    struct Job: Sendable {
        /// The client waiting (the server's id).
        var client: Int
        /// nil: never cached (a HISTORY reply depends on what was written since).
        var key: Key?
        /// Builds the reply line (without newline); runs on the renderer's thread.
        var render: @Sendable () -> [UInt8]
    }

    /// Lines kept for clients asking the same again, at most, and their bytes at most
    /// (the newest line is kept whatever its size).
    static let cacheLines = 8
    static let cacheBytes = 32 << 20

    /// The renderer thread's nice value.
    static let niceness: Int32 = 5

    private struct State {
        var jobs: [Job] = []
        var stopped = false
        var cache: [(key: Key, line: OutboundLine)] = []
    }

    private let state = Mutex(State())
    private let condition = NSCondition()
    private let deliver: @Sendable (_ client: Int, _ line: OutboundLine) -> Void

    /// - Parameter deliver: called on the renderer's thread with each finished line.
    init(deliver: @escaping @Sendable (_ client: Int, _ line: OutboundLine) -> Void) {
        self.deliver = deliver
        Thread.detachNewThread { [self] in
            Thread.current.name = "lector-render"
            // Previews come last: on a small machine the recognizers and the server go first.
            try? Syscalls.setThreadPriority(Self.niceness)
            run()
        }
    }

    /// Queues `job` (any thread; never blocks on a rendering).
    func submit(_ job: Job) {
        condition.lock()
        state.withLock { $0.jobs.append(job) }
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread after the job in progress; jobs still queued are dropped.
    func stop() {
        condition.lock()
        state.withLock { $0.stopped = true }
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while let job = next() {
            let cached = job.key.flatMap { key in state.withLock { state in state.cache.first { $0.key == key }?.line } }
            let line = cached ?? OutboundLine(job.render())
            if cached == nil, let key = job.key {
                state.withLock { state in
                    // A newer frame of the device makes its older lines useless.
                    state.cache.removeAll { $0.key.device == key.device && $0.key.sequence != key.sequence }
                    state.cache.append((key, line))
                    while state.cache.count > 1, state.cache.count > Self.cacheLines
                        || state.cache.reduce(0, { $0 + $1.line.count }) > Self.cacheBytes {
                        state.cache.removeFirst()
                    }
                }
            }
            deliver(job.client, line)
        }
    }

    /// The next job, waiting for one; nil once stopped.
    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let taken: Job?? = state.withLock { state in
                if state.stopped { return .some(nil) }
                return state.jobs.isEmpty ? nil : .some(state.jobs.removeFirst())
            }
            if let taken { return taken }
            condition.wait()
        }
    }
}
