import CLectorSystem
import Glibc
import Synchronization

/// One buffer of a gathered write (`struct iovec`).
public typealias IOVector = iovec

/// The outcome of a non-blocking transfer: EAGAIN is a value, not an error (swift-nio's
/// `IOResult`).
public enum IOResult<Value: Sendable>: Sendable {
    case done(Value)
    case wouldBlock
}

/// The only place that calls the C library from Lector's Swift code (swift-system's
/// `Syscalls.swift` shape): sockets, poll and the wake event here; files, processes and
/// signals in the `Syscalls+…` files beside it. Each wrapper retries EINTR (never for
/// `close`), turns EAGAIN into ``IOResult/wouldBlock``, traps on errnos that can only
/// mean a bug (EBADF, EFAULT), and throws ``SystemError`` for the rest.
///
/// In debug builds it is also the seam for fault injection: a test can make the next
/// calls of a named function on a given descriptor fail with an errno
/// (``injectFault(_:call:descriptor:count:)``). Release builds have no such check.
public enum Syscalls {
#if DEBUG
    // MARK: Fault injection (debug builds only)

    private struct FaultKey: Hashable {
        var call: String
        var descriptor: Int32
    }

    private static let faults = Mutex<[FaultKey: (errno: Int32, remaining: Int)]>([:])
    /// Whether any fault is injected: every call checks this, not the table.
    private static let anyFault = Atomic<Bool>(false)

    /// Makes the next `count` calls of `call` (e.g. `"write"`) on `descriptor` fail with
    /// `errno`. For tests of faults real sockets cannot produce on demand; debug builds
    /// only.
    public static func injectFault(_ errno: Int32, call: String, descriptor: Int32, count: Int = 1) {
        faults.withLock {
            $0[FaultKey(call: call, descriptor: descriptor)] = (errno, count)
            anyFault.store(true, ordering: .releasing)
        }
    }

    /// The errno injected for this call of `call` on `descriptor`, if any (used once).
    static func injected(_ call: String, _ descriptor: Int32) -> Int32? {
        guard anyFault.load(ordering: .acquiring) else { return nil }
        return faults.withLock { table in
            let key = FaultKey(call: call, descriptor: descriptor)
            guard let fault = table[key] else { return nil }
            table[key] = fault.remaining > 1 ? (fault.errno, fault.remaining - 1) : nil
            return fault.errno
        }
    }
#else
    /// Release builds inject nothing.
    @inline(__always)
    static func injected(_ call: String, _ descriptor: Int32) -> Int32? { nil }
#endif

    // MARK: Helpers

    static func checkBug(_ call: String) {
        let code = Glibc.errno
        precondition(code != EBADF && code != EFAULT, "\(call) failed with \(String(cString: strerror(code))): a bug")
    }

    /// Runs `body` until it does not fail with EINTR; a negative result throws.
    static func retrying(_ call: String, _ descriptor: Int32, _ body: () -> Int) throws(SystemError) -> Int {
        if let code = injected(call, descriptor) { throw SystemError(errno: code, call: call) }
        while true {
            let result = body()
            if result >= 0 { return result }
            if Glibc.errno == EINTR { continue }
            checkBug(call)
            throw SystemError.current(call)
        }
    }

    /// Like ``retrying(_:_:_:)`` with EAGAIN/EWOULDBLOCK as ``IOResult/wouldBlock``.
    static func nonBlocking(_ call: String, _ descriptor: Int32, _ body: () -> Int) throws(SystemError) -> IOResult<Int> {
        do {
            return .done(try retrying(call, descriptor, body))
        } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
            return .wouldBlock
        }
    }

    /// Fills a `sockaddr_un` for `path` and calls `body` with it.
    private static func withAddress<R>(_ path: String, call: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) throws(SystemError) -> R {
        try withAddress(bytes: Array(path.utf8), call: call, body)
    }

    /// Fills a `sockaddr_un` for `bytes` — a path, or a name in Linux's abstract
    /// namespace after a leading NUL, which its length ends instead of a NUL — and calls
    /// `body` with it.
    private static func withAddress<R>(bytes: [UInt8], call: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) throws(SystemError) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { throw SystemError(errno: ENAMETOOLONG, call: call) }
        let abstract = bytes[0] == 0
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            if !abstract { raw[bytes.count] = 0 }
        }
        // offset(of:) of a stored C struct field is never nil.
        let length = abstract ? MemoryLayout.offset(of: \sockaddr_un.sun_path)! + bytes.count : MemoryLayout<sockaddr_un>.size
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }

    // MARK: Sockets

    /// A new Unix stream (or datagram) socket, close-on-exec, optionally non-blocking.
    /// The corresponding C function is `socket`.
    public static func unixSocket(nonBlocking: Bool, datagram: Bool = false) throws(SystemError) -> Int32 {
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let type = Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue)
        return Int32(try retrying("socket", -1) { Int(socket(AF_UNIX, type | flags, 0)) })
    }

    /// The corresponding C function is `bind`.
    public static func bind(_ descriptor: Int32, path: String) throws(SystemError) {
        let result = try withAddress(path, call: "bind") { Glibc.bind(descriptor, $0, $1) }
        if result < 0 {
            checkBug("bind")
            throw SystemError.current("bind")
        }
    }

    /// Connects, blocking. The corresponding C function is `connect`.
    public static func connect(_ descriptor: Int32, path: String) throws(SystemError) {
        try connect(descriptor, address: Array(path.utf8))
    }

    /// Connects to a path, or to an abstract name after a leading NUL.
    /// The corresponding C function is `connect`.
    public static func connect(_ descriptor: Int32, address: [UInt8]) throws(SystemError) {
        if let code = injected("connect", descriptor) { throw SystemError(errno: code, call: "connect") }
        while true {
            let result = try withAddress(bytes: address, call: "connect") { Glibc.connect(descriptor, $0, $1) }
            if result == 0 { return }
            if Glibc.errno == EINTR { continue }
            checkBug("connect")
            throw SystemError.current("connect")
        }
    }

    /// The process, user and group of the peer of a connected Unix socket (for a
    /// listening socket's peer: whoever called `listen`). The corresponding C function
    /// is `getsockopt` with `SO_PEERCRED`.
    public static func peerCredentials(_ descriptor: Int32) throws(SystemError) -> (process: Int32, user: uid_t, group: gid_t) {
        var process: pid_t = 0
        var user: uid_t = 0
        var group: gid_t = 0
        _ = try retrying("getsockopt", descriptor) { Int(lector_peer_credentials(descriptor, &process, &user, &group)) }
        return (process, user, group)
    }

    /// The corresponding C function is `listen`.
    public static func listen(_ descriptor: Int32, backlog: Int32) throws(SystemError) {
        _ = try retrying("listen", descriptor) { Int(Glibc.listen(descriptor, backlog)) }
    }

    /// Accepts a connection as a non-blocking, close-on-exec descriptor, in one call.
    /// The corresponding C function is `accept4` (from the `CLectorSystem` shim: Glibc's
    /// module map does not export it).
    public static func accept(_ descriptor: Int32) throws(SystemError) -> IOResult<Int32> {
        switch try nonBlocking("accept", descriptor, { Int(lector_accept4_nonblocking(descriptor)) }) {
        case let .done(client): .done(Int32(client))
        case .wouldBlock: .wouldBlock
        }
    }

    /// Whether `descriptor` is a listening Unix stream socket (systemd socket activation).
    /// The corresponding C functions are `getsockopt` and `getsockname`.
    public static func isListeningUnixSocket(_ descriptor: Int32) -> Bool {
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening != 0 else { return false }
        var address = sockaddr_storage()
        var addressLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &addressLength) }
        }
        return named == 0 && address.ss_family == sa_family_t(AF_UNIX)
    }

    /// Sets O_NONBLOCK and FD_CLOEXEC. The corresponding C function is `fcntl`.
    public static func makeNonBlocking(_ descriptor: Int32) throws(SystemError) {
        let flags = try retrying("fcntl", descriptor) { Int(fcntl(descriptor, F_GETFL)) }
        _ = try retrying("fcntl", descriptor) { Int(fcntl(descriptor, F_SETFL, Int32(flags) | O_NONBLOCK)) }
        _ = try retrying("fcntl", descriptor) { Int(fcntl(descriptor, F_SETFD, FD_CLOEXEC)) }
    }

    // MARK: Transfer

    /// Reads into `buffer`; `.done(0)` is the end of the stream.
    /// The corresponding C function is `read`.
    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try nonBlocking("read", descriptor) { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// Writes from `buffer`, possibly partly. The corresponding C function is `write`
    /// (`send` with MSG_NOSIGNAL, so a closed reader is EPIPE even without SIGPIPE ignored).
    public static func write(_ descriptor: Int32, from buffer: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try nonBlocking("write", descriptor) { send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Writes from `buffer` to any descriptor (a pipe, a file, a terminal), possibly
    /// partly: for standard output, where ``write(_:from:)``'s `send` does not apply.
    /// The corresponding C function is `write`.
    public static func writeFile(_ descriptor: Int32, from buffer: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try nonBlocking("write", descriptor) { Glibc.write(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// Writes from `buffers` in order, possibly partly, in one call. The corresponding C
    /// function is `sendmsg` (with MSG_NOSIGNAL, as ``write(_:from:)``).
    public static func write(_ descriptor: Int32, gathering buffers: UnsafeBufferPointer<IOVector>) throws(SystemError) -> IOResult<Int> {
        try nonBlocking("sendmsg", descriptor) {
            var message = msghdr()
            message.msg_iov = UnsafeMutablePointer(mutating: buffers.baseAddress)
            message.msg_iovlen = buffers.count
            return sendmsg(descriptor, &message, Int32(MSG_NOSIGNAL))
        }
    }

    /// Waits for events; EINTR returns 0 ready descriptors.
    /// The corresponding C function is `poll`.
    public static func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        let result = descriptors.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds) }
        if result >= 0 { return Int(result) }
        if Glibc.errno == EINTR { return 0 }
        checkBug("poll")
        throw SystemError.current("poll")
    }

    /// Closes, never retried (Linux releases the descriptor even on EINTR).
    /// The corresponding C function is `close`.
    public static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    // MARK: Datagrams

    /// Sends `payload` as one datagram to the Unix socket at `address` (a path, or an
    /// abstract name after a leading NUL) from a new non-blocking, close-on-exec socket,
    /// closed again on every path. The socket is connected, so that when the receiver's
    /// queue is full `poll` can tell when it has room; after `timeout` seconds without
    /// room it fails with EAGAIN. Faults are injected as `sendto` on descriptor -1 (the
    /// socket is new each time). systemd's notify protocol is its user.
    /// The corresponding C functions are `socket`, `connect`, `send`, `poll` and `close`.
    public static func sendDatagram(_ payload: [UInt8], to address: [UInt8], timeout: Double) throws(SystemError) {
        if let code = injected("sendto", -1) { throw SystemError(errno: code, call: "sendto") }
        let descriptor = try unixSocket(nonBlocking: true, datagram: true)
        defer { close(descriptor) }
        try connect(descriptor, address: address)
        let deadline = MonotonicInstant.now().adding(milliseconds: timeout * 1000)
        while true {
            let sent = payload.withUnsafeBytes { bytes in
                Result { () throws(SystemError) in
                    try nonBlocking("send", descriptor) { Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
                }
            }
            if case .done = try sent.get() { return }
            let remaining = deadline.milliseconds(since: .now())
            guard remaining > 0 else { throw SystemError(errno: EAGAIN, call: "send") }
            var entry = [pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)]
            _ = try poll(&entry, timeoutMilliseconds: Int32(min(remaining, 1000).rounded(.up)))
        }
    }

    // MARK: Wakeup

    /// A non-blocking, close-on-exec event descriptor that wakes a poll loop: readable
    /// while signalled. One descriptor, owned by the caller, closed with ``close(_:)``.
    /// The corresponding C function is `eventfd` (from the `CLectorSystem` shim).
    public static func wakeEvent() throws(SystemError) -> Int32 {
        Int32(try retrying("eventfd", -1) { Int(lector_eventfd_nonblocking()) })
    }

    /// Signals a wake event; a counter already at its maximum still wakes the reader,
    /// so EAGAIN is fine. The corresponding C function is `write`.
    public static func signalWake(_ descriptor: Int32) {
        var one: UInt64 = 1
        while Glibc.write(descriptor, &one, MemoryLayout<UInt64>.size) < 0 && Glibc.errno == EINTR {}
    }

    /// Resets a wake event (not signalled any more); EAGAIN (not signalled) is fine.
    /// The corresponding C function is `read`.
    public static func drainWake(_ descriptor: Int32) {
        var count: UInt64 = 0
        while Glibc.read(descriptor, &count, MemoryLayout<UInt64>.size) < 0 && Glibc.errno == EINTR {}
    }

    /// How many bytes wait to be read on `descriptor` (a socket's unread input). The
    /// corresponding C function is `ioctl` (FIONREAD).
    public static func bytesReadable(_ descriptor: Int32) throws(SystemError) -> Int {
        let count = lector_bytes_readable(descriptor)
        guard count >= 0 else { throw SystemError(errno: Glibc.errno, call: "ioctl(FIONREAD)") }
        return Int(count)
    }

    /// Whether `descriptor` can take more bytes within `timeoutMilliseconds` (negative:
    /// waits for ever); EINTR counts as not yet. The corresponding C function is `poll`.
    public static func waitWritable(_ descriptor: Int32, timeoutMilliseconds: Int32) throws(SystemError) -> Bool {
        var entry = [pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)]
        return try poll(&entry, timeoutMilliseconds: timeoutMilliseconds) > 0
    }

    /// Whether `descriptor` becomes readable within `timeoutMilliseconds` (negative:
    /// waits for ever); EINTR counts as not yet. The corresponding C function is `poll`.
    public static func waitReadable(_ descriptor: Int32, timeoutMilliseconds: Int32) throws(SystemError) -> Bool {
        var entry = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        return try poll(&entry, timeoutMilliseconds: timeoutMilliseconds) > 0
    }
}
