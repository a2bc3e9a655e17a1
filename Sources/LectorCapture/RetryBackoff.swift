import LectorProtocol
import LectorSystem

/// How long to wait before reopening a lost device: short at first (a USB camera
/// re-enumerates in about a second), growing to a cap so a camera that stays away costs
/// nothing. Waits go through ``StopSignal/wait(seconds:)``, so stop ends them at once.
public struct RetryBackoff: Sendable {
    public let initial: Double
    public let maximum: Double
    private var current: Double

    /// - Parameters: initial: the first wait in seconds; maximum: the cap.
    public init(initial: Double = 0.1, maximum: Double = 5) {
        self.initial = initial
        self.maximum = maximum
        current = initial
    }

    /// The next wait: 0.1, 0.2, 0.4, ... up to the maximum.
    public mutating func next() -> Double {
        defer { current = min(current * 2, maximum) }
        return current
    }

    /// Starts again from the shortest wait (the device streamed again).
    public mutating func reset() { current = initial }
}
