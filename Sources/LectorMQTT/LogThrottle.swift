import Foundation
import LectorSystem

/// Logs a recurring event at most once per ``interval`` per key, saying how many were
/// not logged since: 10,000 commands for an unknown camera make a handful of lines.
struct LogThrottle {
    /// Seconds between two lines of one key.
    static let interval = 10.0
    private var last: [String: (time: Date, suppressed: Int)] = [:]

    /// Logs `message` under `key` unless one was logged within ``interval``; a line after
    /// a quiet spell carries `suppressed=N`, the events left out.
    mutating func log(_ logger: Logger, _ key: String, _ level: Logger.Level, _ message: String,
                      _ fields: [(String, String)] = [], now: Date = Date()) {
        if let entry = last[key], now.timeIntervalSince(entry.time) < Self.interval {
            last[key]?.suppressed += 1
            return
        }
        let suppressed = last[key]?.suppressed ?? 0
        last[key] = (now, 0)
        logger.log(level, message, fields + (suppressed > 0 ? [("suppressed", "\(suppressed)")] : []))
    }
}
