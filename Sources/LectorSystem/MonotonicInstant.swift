import Glibc

/// A point in time on CLOCK_MONOTONIC, the clock V4L2 stamps buffers with.
public struct MonotonicInstant: Comparable, Hashable, Sendable {
    /// Nanoseconds since an unspecified start (boot).
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// Builds an instant from a kernel `timeval` (V4L2 buffer timestamps).
    public init(seconds: Int, microseconds: Int) {
        nanoseconds = Int64(seconds) * 1_000_000_000 + Int64(microseconds) * 1_000
    }

    /// The current time.
    public static func now() -> MonotonicInstant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicInstant(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// Milliseconds from `earlier` to this instant.
    public func milliseconds(since earlier: MonotonicInstant) -> Double {
        Double(nanoseconds - earlier.nanoseconds) / 1_000_000
    }

    /// Adds milliseconds.
    public func adding(milliseconds: Double) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: nanoseconds + Int64(milliseconds * 1_000_000))
    }

    /// The wall-clock time of this instant, as seconds since the Unix epoch, using the
    /// current offset between CLOCK_REALTIME and CLOCK_MONOTONIC.
    public var unixTime: Double {
        var real = timespec()
        var mono = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        let offset = Double(real.tv_sec - mono.tv_sec) + Double(real.tv_nsec - mono.tv_nsec) / 1e9
        return Double(nanoseconds) / 1e9 + offset
    }

    /// RFC 3339 UTC with milliseconds, e.g. `2026-11-29T11:35:22.123Z`.
    public var rfc3339: String { Self.rfc3339(unixTime: unixTime) }

    /// Formats seconds since the epoch as RFC 3339 UTC with milliseconds.
    public static func rfc3339(unixTime: Double) -> String {
        var millis = Int64((unixTime * 1000).rounded(.down))
        if millis < 0 { millis = 0 }
        var seconds = time_t(millis / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis % 1000), 3))Z"
    }
}
