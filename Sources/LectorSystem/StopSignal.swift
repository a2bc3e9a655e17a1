import Foundation

/// A one-way "please stop" shared by the threads of a camera or of the daemon. Waits
/// on it end early when it is raised, so loops that sleep (backoff, pacing) stop fast.
public final class StopSignal: @unchecked Sendable {
    // `condition` guards `raised`.
    private let condition = NSCondition()
    private var raised = false

    public init() {}

    public var isRaised: Bool {
        condition.lock()
        defer { condition.unlock() }
        return raised
    }

    public func raise() {
        condition.lock()
        raised = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps up to `seconds`; returns true if stop was raised (at once when it was).
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !raised {
            if !condition.wait(until: deadline) { break }
        }
        return raised
    }
}
