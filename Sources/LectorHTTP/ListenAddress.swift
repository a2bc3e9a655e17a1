import LectorSystem

/// Where lector-http listens: a TCP address (`--listen ADDR:PORT`) or a Unix socket
/// path (`--listen-unix PATH`, for a reverse proxy).
public enum ListenAddress: Equatable, Sendable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)

    /// The default: loopback only.
    public static let standard = ListenAddress.tcp(host: "127.0.0.1", port: 8170)

    /// Parses `ADDR:PORT`: `127.0.0.1:8170`, `0.0.0.0:8170`, `[::1]:8170`, `[::]:8170`.
    public init?(hostPort text: String) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            // An IPv6 address needs its brackets: "::1:8170" is ambiguous.
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard let number = Int(port), (1...65535).contains(number), Syscalls.internetFamily(of: String(host)) != nil else { return nil }
        self = .tcp(host: String(host), port: number)
    }

    /// Whether only this machine can connect: a loopback address or a Unix socket
    /// (whose access the file mode and the proxy decide).
    public var isLocalOnly: Bool {
        switch self {
        case .unix: return true
        case let .tcp(host, _): return host == "::1" || host.hasPrefix("127.")
        }
    }

    public var description: String {
        switch self {
        case let .tcp(host, port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case let .unix(path): "unix:\(path)"
        }
    }

    /// A bound, listening, close-on-exec socket for this address (a Unix socket path is
    /// replaced if it is a stale socket, and made mode 0660). The caller owns it.
    /// The corresponding C functions are `socket`, `setsockopt`, `bind` and `listen`.
    public func listeningSocket(backlog: Int32 = 128) throws(SystemError) -> Int32 {
        switch self {
        case let .unix(path):
            if Syscalls.isSocket(path) { try? Syscalls.unlink(path) }
            let descriptor = try Syscalls.unixSocket(nonBlocking: false)
            do {
                try Syscalls.bind(descriptor, path: path)
                try Syscalls.chmod(path, mode: 0o660)
                try Syscalls.listen(descriptor, backlog: backlog)
            } catch {
                Syscalls.close(descriptor)
                throw error
            }
            return descriptor
        case let .tcp(host, port):
            return try Syscalls.tcpListener(host: host, port: port, backlog: backlog)
        }
    }
}
