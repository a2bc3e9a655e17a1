import Glibc

/// Files and directories: what the listening socket's path needs.
extension Syscalls {
    /// The corresponding C function is `chmod`.
    public static func chmod(_ path: String, mode: mode_t) throws(SystemError) {
        _ = try retrying("chmod", -1) { Int(Glibc.chmod(path, mode)) }
    }

    /// Changes only the group. The corresponding C function is `chown`.
    public static func chgrp(_ path: String, group: gid_t) throws(SystemError) {
        _ = try retrying("chown", -1) { Int(Glibc.chown(path, uid_t.max, group)) }
    }

    /// Creates an empty regular file at `path` with exactly `mode` (whatever the umask),
    /// or does nothing when `path` exists (a link included, which is never followed).
    /// - Returns: whether the file was created.
    /// The corresponding C functions are `open` (`O_CREAT | O_EXCL | O_NOFOLLOW`), `fchmod` and `close`.
    @discardableResult
    public static func createEmptyFile(_ path: String, mode: mode_t) throws(SystemError) -> Bool {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY
        let descriptor: Int32
        do {
            descriptor = Int32(try retrying("open", -1) { Int(Glibc.open(path, flags, mode)) })
        } catch where error.errno == EEXIST {
            return false
        }
        defer { close(descriptor) }
        _ = try retrying("fchmod", descriptor) { Int(Glibc.fchmod(descriptor, mode)) }
        return true
    }

    /// The corresponding C function is `unlink`.
    public static func unlink(_ path: String) throws(SystemError) {
        _ = try retrying("unlink", -1) { Int(Glibc.unlink(path)) }
    }

    /// Creates a directory; an existing one is fine. The corresponding C function is `mkdir`.
    public static func makeDirectory(_ path: String, mode: mode_t) throws(SystemError) {
        if Glibc.mkdir(path, mode) == 0 || Glibc.errno == EEXIST { return }
        throw SystemError.current("mkdir")
    }

    /// What kind of file `path` is, without following a symbolic link; nil when it does
    /// not exist. The corresponding C function is `lstat`.
    public static func fileType(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    /// The type, permission bits and owner of `path`, without following a symbolic
    /// link; nil when it does not exist. The corresponding C function is `lstat`.
    public static func fileStatus(_ path: String) -> (type: mode_t, permissions: mode_t, owner: uid_t)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT, info.st_mode & 0o7777, info.st_uid)
    }

    /// `path`'s status, without following a symbolic link; nil when it does not exist.
    /// The corresponding C function is `lstat`.
    public static func linkStatus(_ path: String) -> FileStatus? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileStatus(info)
    }

    /// Whether `path` is a socket (not following a symbolic link).
    /// The corresponding C function is `lstat`.
    public static func isSocket(_ path: String) -> Bool { fileType(path) == S_IFSOCK }

    /// A group's id from its name or number. The corresponding C function is `getgrnam_r`.
    public static func groupID(_ name: String) -> gid_t? {
        if let number = UInt32(name) { return gid_t(number) }
        var group = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 16384)
        let status = getgrnam_r(name, &group, &buffer, buffer.count, &result)
        guard status == 0, result != nil else { return nil }
        return group.gr_gid
    }

    /// A user's id from its name, or nil when there is no such user. The corresponding
    /// C function is `getpwnam_r`.
    public static func userID(named name: String) -> uid_t? {
        var user = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        let status = getpwnam_r(name, &user, &buffer, buffer.count, &result)
        guard status == 0, result != nil else { return nil }
        return user.pw_uid
    }

    /// Runs `body` with the file-mode creation mask set to `mask`, then restores the
    /// previous one (files `body` creates lack the mask's permission bits). The mask is
    /// process-wide: call it before other threads create files. The corresponding C
    /// function is `umask`.
    /// - Parameters:
    ///   - mask: The permission bits new files must not have (0o117: owner and group
    ///     may read and write).
    ///   - body: What creates the files.
    public static func withCreationMask<R, E: Error>(_ mask: mode_t, _ body: () throws(E) -> R) throws(E) -> R {
        let previous = Glibc.umask(mask)
        defer { Glibc.umask(previous) }
        return try body()
    }
}
