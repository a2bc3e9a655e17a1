/// How long a client waits before it tries lectord's socket again.
public struct ReconnectBackoff: Sendable {
    /// The wait after `failures` attempts in a row failed (the first failure: 1).
    private let wait: @Sendable (Int) -> Double
    /// The wait before the first attempt after a connection that worked was lost.
    public let afterLoss: Double

    /// - Parameters:
    ///   - wait: the wait after a number of failed attempts in a row (1 for the first).
    ///   - afterLoss: the wait after a working connection was lost.
    public init(afterLoss: Double, wait: @escaping @Sendable (Int) -> Double) {
        self.afterLoss = afterLoss
        self.wait = wait
    }

    /// The wait after `failures` attempts in a row failed.
    public func wait(afterFailures failures: Int) -> Double { wait(max(1, failures)) }

    /// `first`, doubling after each failure up to `maximum`; `first` after a loss
    /// (lector-mqtt: 0.25 s to 5 s).
    public static func doubling(from first: Double, to maximum: Double) -> Self {
        Self(afterLoss: first) { failures in min(first * Double(1 << min(failures - 1, 30)), maximum) }
    }

    /// `step` more after each failure up to `maximum`; none after a loss, the next
    /// attempt follows at once (lector-http's events: 0.2 s to 2 s).
    public static func growing(by step: Double, to maximum: Double) -> Self {
        Self(afterLoss: 0) { failures in min(step * Double(failures), maximum) }
    }

    /// No wait: every request tries again (lector-http's requests).
    public static let none = Self(afterLoss: 0) { _ in 0 }
}
