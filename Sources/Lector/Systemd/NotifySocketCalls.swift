import Glibc
import Synchronization

/// The only place that calls the C socket functions for systemd's notify protocol: one
/// datagram to `$NOTIFY_SOCKET` per message (swift-system's `Syscalls.swift` shape).
/// EINTR is retried (never for `close`); errnos that can only mean a bug trap.
///
/// It is also the seam for fault injection: a test can make the next sends fail with an
/// errno (``injectSendFault(_:count:)``), e.g. ECONNREFUSED when systemd has gone.
enum NotifySocketCalls {
    private static let sendFaults = Mutex<(errno: Int32, remaining: Int)?>(nil)

    /// Makes the next `count` calls of ``send(_:to:)`` fail with `errno`.
    static func injectSendFault(_ errno: Int32, count: Int = 1) {
        sendFaults.withLock { $0 = count > 0 ? (errno, count) : nil }
    }

    private static func injectedFault() -> Int32? {
        sendFaults.withLock { fault in
            guard let current = fault else { return nil }
            fault = current.remaining > 1 ? (current.errno, current.remaining - 1) : nil
            return current.errno
        }
    }

    /// Sends `payload` as one datagram to the Unix socket at `address` from a new,
    /// close-on-exec socket, which is closed again on every path. Never blocks for long:
    /// when the receiver's queue is full (systemd busy, or nobody reading) it waits at
    /// most `timeout` seconds for room, then fails with EAGAIN.
    ///
    /// - Parameters:
    ///   - payload: The message bytes (newline-separated `KEY=VALUE` assignments).
    ///   - address: The socket's path, or an abstract name.
    ///   - timeout: Seconds to wait for room in the receiver's queue.
    /// - Throws: ``SystemError`` naming `socket`, `connect`, `send` or `poll`.
    ///
    /// The corresponding C functions are `socket`, `connect`, `send`, `poll` and `close`.
    static func send(_ payload: [UInt8], to address: NotifyAddress, timeout: Double = 1) throws(SystemError) {
        if let errno = injectedFault() { throw SystemError(errno: errno, call: "sendto") }
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .current("socket") }
        defer { _ = Glibc.close(descriptor) }  // never retried: the descriptor is gone either way

        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let name: [UInt8]
        switch address {
        case let .path(path): name = Array(path.utf8)
        case let .abstract(abstractName): name = [0] + Array(abstractName.utf8)  // leading NUL: abstract namespace
        }
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        // NotifyAddress.init(environmentValue:) refuses longer names.
        precondition(name.count < capacity, "notify socket name longer than sun_path")
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: name)
        }
        // Abstract names are not NUL-terminated: the length says where they end.
        // (offset(of:) of a stored C struct field is never nil.)
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + name.count + (name.first == 0 ? 0 : 1))
        // Connected, so that poll() can tell when the receiver's queue has room.
        try retrying("connect") {
            withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Int(Glibc.connect(descriptor, $0, length)) }
            }
        }
        let deadline = MonotonicInstant.now().adding(milliseconds: timeout * 1000)
        while true {
            let sent = payload.withUnsafeBytes { bytes in
                Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if sent >= 0 { return }
            let code = Glibc.errno
            if code == EINTR { continue }
            precondition(code != EBADF && code != EFAULT, "send failed with \(String(cString: strerror(code))): a bug")
            guard code == EAGAIN else { throw SystemError(errno: code, call: "send") }
            let remaining = deadline.milliseconds(since: .now())
            guard remaining > 0 else { throw SystemError(errno: EAGAIN, call: "send") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            try retrying("poll") { Int(Glibc.poll(&poller, 1, Int32(min(remaining, 1000).rounded(.up)))) }
        }
    }

    /// Runs `body` until it does not fail with EINTR; other failures throw.
    private static func retrying(_ call: String, _ body: () -> Int) throws(SystemError) {
        while true {
            if body() >= 0 { return }
            let code = Glibc.errno
            if code == EINTR { continue }
            precondition(code != EBADF && code != EFAULT, "\(call) failed with \(String(cString: strerror(code))): a bug")
            throw SystemError(errno: code, call: call)
        }
    }
}
