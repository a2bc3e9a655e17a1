import Foundation
import LectorSystem

/// Slows password guessing per client address and logs failed passwords without
/// flooding the log. Every password is checked, and a right one is admitted at once
/// whatever came before (a guesser on the owner's address cannot lock the owner out);
/// after ``freeFailures`` wrong passwords from one address, the answer to each further
/// wrong one is delayed (1 s, doubling up to ``longestWait``), so a guesser learns that
/// a password was wrong only that late: with the per-address connection limit (32) at
/// most about one guess a second. An address's failures are forgotten ``forgetAfter``
/// seconds after its last one. At most one log line per ``logInterval`` says how many
/// failed since the last line, and the latest address.
public final class LoginThrottle: @unchecked Sendable {
    private struct Address {
        var failures = 0
        var lastSeen = Date()
    }

    /// Wrong passwords an address may send at full speed (a user's typos).
    public static let freeFailures = 3
    /// The longest delay of the answer to a wrong password.
    public static let longestWait = 30.0
    /// Seconds without a wrong password after which an address starts afresh.
    public static let forgetAfter = 600.0
    /// Seconds between two log lines about failed passwords.
    public static let logInterval = 60.0
    /// Addresses remembered at most (the oldest is forgotten first).
    static let capacity = 4096

    private let logger: Logger
    // `lock` guards everything below.
    private let lock = NSLock()
    private var addresses: [String: Address] = [:]
    private let warning: RateLimitedWarning

    public init(logger: Logger) {
        self.logger = logger
        warning = RateLimitedWarning(logger: logger, message: "wrong password", interval: Self.logInterval)
    }

    /// A wrong password from `address`: the seconds its answer waits (0: none).
    public func failed(_ address: String, now: Date = Date()) -> Double {
        lock.lock()
        var entry = addresses[address] ?? Address()
        if now.timeIntervalSince(entry.lastSeen) > Self.forgetAfter { entry.failures = 0 }
        entry.failures += 1
        entry.lastSeen = now
        let delay = entry.failures > Self.freeFailures ? min(Self.longestWait, pow(2, Double(entry.failures - Self.freeFailures - 1))) : 0
        if addresses[address] == nil, addresses.count >= Self.capacity,
           let oldest = addresses.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
            addresses[oldest] = nil
        }
        addresses[address] = entry
        lock.unlock()
        warning.record([("from", address), ("failures_in_a_row", "\(entry.failures)")], now: now)
        return delay
    }
}
