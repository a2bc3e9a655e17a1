import Foundation
import LectorProtocol
import LectorSystem

/// Why the server socket cannot be set up.
public enum ListenError: Error, Equatable, CustomStringConvertible {
    /// Another live lectord answers on the path.
    case inUse(path: String)
    /// Something that is not a socket is in the way; it is never removed.
    case notASocket(path: String)
    case noSuchGroup(String)
    case system(path: String, SystemError)

    public var description: String {
        switch self {
        case let .inUse(path): "another lectord is already serving \(path)"
        case let .notASocket(path): "\(path) exists and is not a socket; not removing it"
        case let .noSuchGroup(name): "no such group '\(name)'"
        case let .system(path, error): "cannot serve \(path): \(error)"
        }
    }
}

/// The listening Unix socket. Its owner is the ``SocketServer``, which closes it (and
/// removes the path it created) when it stops.
public struct ListeningSocket: Sendable {
    public let descriptor: Int32
    /// The path to remove at shutdown; nil when systemd owns the socket.
    public let path: String?

    /// Binds and listens on `path`, mode 0660, owned by `group` when given.
    ///
    /// A socket left by a dead instance (nobody accepts on it) is removed; a live one
    /// makes this fail with ``ListenError/inUse(path:)``.
    public static func bind(path: String, group: String?, backlog: Int32 = 64) throws(ListenError) -> ListeningSocket {
        var gid: gid_t?
        if let group {
            guard let id = Syscalls.groupID(group) else { throw .noSuchGroup(group) }
            gid = id
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, Syscalls.fileType(directory) == nil {
            do { try Syscalls.makeDirectory(directory, mode: 0o755) } catch { throw .system(path: path, error) }
        }
        if let type = Syscalls.fileType(path) {
            guard type == S_IFSOCK else { throw .notASocket(path: path) }
            if isAlive(path) { throw .inUse(path: path) }
            do { try Syscalls.unlink(path) } catch { throw .system(path: path, error) }
        }
        let descriptor: Int32
        do { descriptor = try Syscalls.unixSocket(nonBlocking: true) } catch { throw .system(path: path, error) }
        do {
            // Created with 0660 from the start: no window in which others may connect.
            try Syscalls.withCreationMask(0o117) { () throws(SystemError) in try Syscalls.bind(descriptor, path: path) }
        } catch {
            Syscalls.close(descriptor)
            throw error.errno == EADDRINUSE ? .inUse(path: path) : .system(path: path, error)
        }
        do {
            try Syscalls.chmod(path, mode: 0o660)
            if let gid { try Syscalls.chgrp(path, group: gid) }
            try Syscalls.listen(descriptor, backlog: backlog)
        } catch {
            Syscalls.close(descriptor)
            try? Syscalls.unlink(path)
            throw .system(path: path, error)
        }
        return ListeningSocket(descriptor: descriptor, path: path)
    }

    /// The socket systemd passed by socket activation (LISTEN_PID is this process,
    /// LISTEN_FDS ≥ 1: the first is descriptor 3), or nil. The variables are removed so
    /// children do not inherit them.
    public static func fromSystemd(environment: [String: String] = ProcessInfo.processInfo.environment) -> ListeningSocket? {
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == Syscalls.processID,
              let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1 else { return nil }
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { Syscalls.removeEnvironmentValue(name) }
        let descriptor: Int32 = 3  // SD_LISTEN_FDS_START
        guard Syscalls.isListeningUnixSocket(descriptor), (try? Syscalls.makeNonBlocking(descriptor)) != nil else { return nil }
        return ListeningSocket(descriptor: descriptor, path: nil)
    }

    /// Whether a server accepts connections on `path`.
    static func isAlive(_ path: String) -> Bool {
        guard let probe = try? Syscalls.unixSocket(nonBlocking: false) else { return false }
        defer { Syscalls.close(probe) }
        do {
            try Syscalls.connect(probe, path: path)
            return true
        } catch {
            return false  // ECONNREFUSED: a stale socket
        }
    }

    /// Closes the socket and removes the path it created.
    public func close() {
        Syscalls.close(descriptor)
        if let path { try? Syscalls.unlink(path) }
    }
}
