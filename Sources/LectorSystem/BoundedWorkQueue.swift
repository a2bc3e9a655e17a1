import Foundation
import Synchronization

/// Jobs done in order by one thread of their own behind a bounded queue: the producer
/// (a capture or publish step) never waits; a job beyond ``limit`` is refused and the
/// producer counts it. ``stop()`` does what is queued, then ends the thread.
/// `--record`'s frame writer and the history's writer are two.
public final class BoundedWorkQueue<Job: Sendable>: Sendable {
    private struct State {
        var jobs: [Job] = []
        var stopped = false
    }

    /// Jobs waiting at most.
    public let limit: Int
    private let state = Mutex(State())
    private let condition = NSCondition()
    private let finished = DispatchGroup()

    public init(limit: Int) { self.limit = limit }

    /// Starts the thread, named `name`, at `niceness` (when allowed), doing `work` for each job.
    public func start(name: String, niceness: Int32, work: @escaping @Sendable (Job) -> Void) {
        finished.enter()
        Thread.detachNewThread { [self] in
            Thread.current.name = name
            try? Syscalls.setThreadPriority(niceness)
            while let job = next() { work(job) }
            finished.leave()
        }
    }

    /// Whether a job would be taken now.
    public var hasRoom: Bool { state.withLock { !$0.stopped && $0.jobs.count < limit } }

    /// Queues those of `jobs` that fit (in order; any thread, never waits).
    /// - Returns: how many were refused (the queue full, or stopped).
    @discardableResult
    public func offer(_ jobs: [Job]) -> Int {
        let refused = state.withLock { state -> Int in
            guard !state.stopped else { return jobs.count }
            let room = max(0, limit - state.jobs.count)
            state.jobs.append(contentsOf: jobs.prefix(room))
            return max(0, jobs.count - room)
        }
        condition.lock()
        condition.signal()
        condition.unlock()
        return refused
    }

    /// Does what is queued, then ends the thread; returns once it has (at once when it never started).
    public func stop() {
        condition.lock()
        state.withLock { $0.stopped = true }
        condition.signal()
        condition.unlock()
        finished.wait()
    }

    /// The next job; nil once stopped and drained.
    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let taken: Job?? = state.withLock { state in
                if !state.jobs.isEmpty { return .some(state.jobs.removeFirst()) }
                return state.stopped ? .some(nil) : nil
            }
            if let taken { return taken }
            condition.wait()
        }
    }
}
