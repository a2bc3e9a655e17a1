import Foundation
import LectorSystem

/// Slows password guessing per client address and logs failed passwords without
/// flooding the log. After ``freeFailures`` wrong passwords from one address, each
/// further one makes that address wait (1 s, doubling up to ``longestWait``) before
/// its next password is even checked; until then it is answered 429. A right password
/// clears the address. At most one log line per ``logInterval`` says how many failed
/// since the last line, and the latest address.
public final class LoginThrottle: @unchecked Sendable {
    private struct Address {
        var failures = 0
        var blockedUntil = Date.distantPast
        var lastSeen = Date()
    }

    /// Wrong passwords an address may send at full speed (a user's typos).
    public static let freeFailures = 3
    /// The longest wait between two checked passwords from one address.
    public static let longestWait = 30.0
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

    /// Seconds `address` must still wait before its next password is checked (0: now).
    public func wait(for address: String, now: Date = Date()) -> Double {
        lock.lock()
        defer { lock.unlock() }
        return max(0, (addresses[address]?.blockedUntil ?? .distantPast).timeIntervalSince(now))
    }

    /// A wrong password from `address`.
    public func failed(_ address: String, now: Date = Date()) {
        lock.lock()
        var entry = addresses[address] ?? Address()
        entry.failures += 1
        entry.lastSeen = now
        if entry.failures > Self.freeFailures {
            let wait = min(Self.longestWait, pow(2, Double(entry.failures - Self.freeFailures - 1)))
            entry.blockedUntil = now.addingTimeInterval(wait)
        }
        if addresses[address] == nil, addresses.count >= Self.capacity,
           let oldest = addresses.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
            addresses[oldest] = nil
        }
        addresses[address] = entry
        lock.unlock()
        warning.record([("from", address), ("failures_in_a_row", "\(entry.failures)")], now: now)
    }

    /// A right password from `address`: it is no longer slowed.
    public func succeeded(_ address: String) {
        lock.lock()
        if addresses[address] != nil { addresses[address] = nil }
        lock.unlock()
    }
}
