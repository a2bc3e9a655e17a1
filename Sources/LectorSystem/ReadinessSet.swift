import CLectorSystem
import Glibc

/// A set of descriptors the kernel watches for readiness (epoll, level-triggered).
///
/// Unlike `poll`, whose set is handed to the kernel (and walked by it) on every call,
/// the set is kept in the kernel and changed only when a descriptor's interest changes,
/// so a wait costs what is ready, not what is watched: a server with hundreds of idle
/// clients wakes for one event without touching the others. Each descriptor carries a
/// token of the caller's choice, returned with its events. Event bits are poll's
/// (`POLLIN`, `POLLOUT`, `POLLERR`, `POLLHUP`), which epoll shares on Linux; like poll,
/// an error or hang-up is reported whatever the interest.
///
/// Owns its epoll descriptor until ``close()``; not thread-safe (one loop uses it).
public final class ReadinessSet {
    /// One ready descriptor.
    public struct Event: Sendable {
        /// The token it was added with.
        public var token: UInt64
        /// What is ready, in poll's bits.
        public var events: UInt32
    }

    /// The epoll descriptor, owned by this set.
    private var descriptor: Int32
    private var readyEvents: [UInt32]
    private var readyTokens: [UInt64]

    /// Most events returned by one ``wait(timeoutMilliseconds:)``; more stay pending.
    public static let batch = 256

    /// The corresponding C function is `epoll_create1`.
    public init() throws(SystemError) {
        descriptor = Int32(try Syscalls.retrying("epoll_create1", -1) { Int(lector_epoll_create()) })
        readyEvents = [UInt32](repeating: 0, count: Self.batch)
        readyTokens = [UInt64](repeating: 0, count: Self.batch)
    }

    deinit { close() }

    /// Starts watching `fd` for `events` (0: only errors and hang-up).
    /// The corresponding C function is `epoll_ctl` (EPOLL_CTL_ADD).
    public func add(_ fd: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        _ = try Syscalls.retrying("epoll_ctl", fd) { Int(lector_epoll_control(descriptor, 1, fd, events, token)) }
    }

    /// Changes what `fd` is watched for. The corresponding C function is `epoll_ctl`
    /// (EPOLL_CTL_MOD).
    public func modify(_ fd: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        _ = try Syscalls.retrying("epoll_ctl", fd) { Int(lector_epoll_control(descriptor, 3, fd, events, token)) }
    }

    /// Stops watching `fd` (call before closing it); a descriptor not in the set is
    /// fine. The corresponding C function is `epoll_ctl` (EPOLL_CTL_DEL).
    public func remove(_ fd: Int32) {
        _ = lector_epoll_control(descriptor, 2, fd, 0, 0)
    }

    /// Waits until a descriptor is ready or `timeoutMilliseconds` pass (negative: for
    /// ever); EINTR returns no events. The corresponding C function is `epoll_wait`.
    public func wait(timeoutMilliseconds: Int32) throws(SystemError) -> [Event] {
        let count = readyEvents.withUnsafeMutableBufferPointer { events in
            readyTokens.withUnsafeMutableBufferPointer { tokens in
                lector_epoll_wait(descriptor, events.baseAddress, tokens.baseAddress, Int32(Self.batch), timeoutMilliseconds)
            }
        }
        if count < 0 {
            if Glibc.errno == EINTR { return [] }
            Syscalls.checkBug("epoll_wait")
            throw SystemError.current("epoll_wait")
        }
        return (0..<Int(count)).map { Event(token: readyTokens[$0], events: readyEvents[$0]) }
    }

    /// Closes the epoll descriptor (the watched ones stay open); twice is fine.
    public func close() {
        guard descriptor >= 0 else { return }
        Syscalls.close(descriptor)
        descriptor = -1
    }
}
