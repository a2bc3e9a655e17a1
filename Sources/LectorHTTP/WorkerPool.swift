import Foundation

/// A fixed set of threads running jobs from a bounded queue: the HTTP requests that
/// wait on lectord run here, so a lectord that does not answer holds these threads,
/// never the ones that serve the page. A job that finds the queue full is refused at
/// once (the caller answers 503) instead of waiting.
public final class WorkerPool: @unchecked Sendable {
    // `condition` guards `jobs`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    /// Most jobs waiting for a thread.
    public let queueLimit: Int

    /// Starts `threads` threads named `name`.
    public init(threads: Int, queueLimit: Int, name: String) {
        self.queueLimit = queueLimit
        for _ in 0..<threads {
            let thread = Thread { [self] in work() }
            thread.name = name
            thread.start()
        }
    }

    /// Queues `job`; false (and nothing queued) when the queue is full.
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard jobs.count < queueLimit else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
