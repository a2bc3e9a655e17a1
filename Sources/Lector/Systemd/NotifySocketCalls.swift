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
    /// unbound, close-on-exec socket, which is closed again on every path.
    ///
    /// - Parameters:
    ///   - payload: The message bytes (newline-separated `KEY=VALUE` assignments).
    ///   - address: The socket's path, or an abstract name.
    /// - Throws: ``SystemError`` naming `socket` or `sendto`.
    ///
    /// The corresponding C functions are `socket`, `sendto` and `close`.
    static func send(_ payload: [UInt8], to address: NotifyAddress) throws(SystemError) {
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
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + name.count + (name.first == 0 ? 0 : 1))
        while true {
            let sent = payload.withUnsafeBytes { bytes in
                withUnsafePointer(to: &storage) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                        Glibc.sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length)
                    }
                }
            }
            if sent >= 0 { return }
            let code = Glibc.errno
            if code == EINTR { continue }
            precondition(code != EBADF && code != EFAULT, "sendto failed with \(String(cString: strerror(code))): a bug")
            throw SystemError(errno: code, call: "sendto")
        }
    }
}
