import CLectorSystem
import Glibc

/// What `fstat`/`fstatat` say of a file, without following a symbolic link.
public struct FileStatus: Equatable, Sendable {
    /// `S_IFREG`, `S_IFDIR`, `S_IFLNK`… (`st_mode & S_IFMT`).
    public var type: mode_t
    /// The permission bits (`st_mode & 0o7777`).
    public var permissions: mode_t
    public var owner: uid_t
    public var group: gid_t
    public var bytes: Int
    /// Seconds since 1970 of the last change to the contents.
    public var modified: Double
    /// Hard links; 0 once a directory was removed.
    public var links: Int
    /// The device and inode: which file it is.
    public var identity: [UInt64]

    public init(type: mode_t, permissions: mode_t, owner: uid_t, group: gid_t, bytes: Int, modified: Double, links: Int,
                identity: [UInt64]) {
        self.type = type
        self.permissions = permissions
        self.owner = owner
        self.group = group
        self.bytes = bytes
        self.modified = modified
        self.links = links
        self.identity = identity
    }

    init(_ info: stat) {
        type = info.st_mode & S_IFMT
        permissions = info.st_mode & 0o7777
        owner = info.st_uid
        group = info.st_gid
        bytes = Int(info.st_size)
        modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        links = Int(info.st_nlink)
        identity = [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    public var isRegular: Bool { type == S_IFREG }
    public var isDirectory: Bool { type == S_IFDIR }
    public var isSymbolicLink: Bool { type == S_IFLNK }
}

/// A directory held open by its descriptor: files in it are made, renamed, removed and
/// looked at relative to that descriptor, by name, never through a symbolic link (a link
/// planted in the directory is a name like any other, never followed). Moving or
/// replacing the directory's path afterwards does not move what is done: ``status``
/// tells whether the path still names it. One owner, which calls ``close()``.
/// The corresponding C functions are `open`, `openat`, `fstatat`, `renameat2` and `unlinkat`.
public final class DirectoryHandle {
    public let path: String
    private var descriptor: Int32

    /// Opens the directory at `path` (symbolic links in the path are followed: the
    /// directory is what they name; check it with ``status``).
    /// - Throws: ``SystemError`` (ENOTDIR when it is not a directory).
    public init(path: String) throws(SystemError) {
        self.path = path
        descriptor = Int32(try Syscalls.retrying("open", -1) { Int(open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) })
    }

    deinit { close() }

    /// Closes the descriptor (once).
    public func close() {
        if descriptor >= 0 { Syscalls.close(descriptor) }
        descriptor = -1
    }

    /// The directory's own status (through its descriptor). The corresponding C function is `fstat`.
    public func status() throws(SystemError) -> FileStatus {
        var info = stat()
        _ = try Syscalls.retrying("fstat", descriptor) { Int(fstat(descriptor, &info)) }
        return FileStatus(info)
    }

    /// Whether `path` still names this directory (not removed, moved or replaced).
    /// The corresponding C functions are `stat` and `fstat`.
    public func isStillAtPath() -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, let own = try? status(), own.links > 0 else { return false }
        return FileStatus(info).identity == own.identity
    }

    /// `name`'s status in the directory, not following a link; nil when there is none.
    /// The corresponding C function is `fstatat` with `AT_SYMLINK_NOFOLLOW`.
    public func status(of name: String) -> FileStatus? {
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileStatus(info)
    }

    /// Creates `name` (which must not exist, not even as a link) with exactly `mode`
    /// whatever the umask, and writes `bytes` into it.
    /// The corresponding C functions are `openat` (`O_CREAT | O_EXCL | O_NOFOLLOW`), `fchmod`, `write` and `close`.
    /// - Throws: ``SystemError``; EEXIST when the name is taken. A file made before
    ///   the failure is left for the caller to remove.
    public func createFile(_ name: String, mode: mode_t, bytes: [UInt8]) throws(SystemError) {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY
        let file = Int32(try Syscalls.retrying("openat", descriptor) { Int(openat(descriptor, name, flags, mode)) })
        defer { Syscalls.close(file) }
        _ = try Syscalls.retrying("fchmod", file) { Int(fchmod(file, mode)) }
        var offset = 0
        while offset < bytes.count {
            let start = offset
            offset += try Syscalls.retrying("write", file) {
                bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + start, $0.count - start) }
            }
        }
    }

    /// Renames `from` to `to` unless `to` exists (EEXIST): nothing is ever replaced.
    /// The corresponding C function is `renameat2` with `RENAME_NOREPLACE`.
    public func renameWithoutReplacing(_ from: String, to: String) throws(SystemError) {
        _ = try Syscalls.retrying("renameat2", descriptor) { Int(lector_rename_noreplace(descriptor, from, to)) }
    }

    /// Removes the name `name` (a link itself, never what it points to).
    /// The corresponding C function is `unlinkat`.
    public func remove(_ name: String) throws(SystemError) {
        _ = try Syscalls.retrying("unlinkat", descriptor) { Int(unlinkat(descriptor, name, 0)) }
    }
}
