import Foundation
import LectorSystem

/// A warning a client can cause at will (a wrong password, a foreign `Host`), written at
/// most once per `interval`: the first at once, then one line per interval saying how
/// many happened since the last line, so an attacker cannot flood the log.
final class RateLimitedWarning: @unchecked Sendable {
    private let logger: Logger
    private let message: String
    private let interval: Double
    // `lock` guards the members below.
    private let lock = NSLock()
    private var count = 0
    private var lastLine = Date.distantPast

    init(logger: Logger, message: String, interval: Double = 60) {
        self.logger = logger
        self.message = message
        self.interval = interval
    }

    /// One more occurrence; `fields` describe this one.
    func record(_ fields: [(String, String)], now: Date = Date()) {
        lock.lock()
        count += 1
        let due = now.timeIntervalSince(lastLine) >= interval
        let total = count
        if due {
            count = 0
            lastLine = now
        }
        lock.unlock()
        if due { logger.warning(message, [("count", "\(total)")] + fields) }
    }
}
