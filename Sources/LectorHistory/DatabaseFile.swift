import LectorSystem

/// The files of an SQLite database lectord writes (the history, the evidence ledger):
/// created with an explicit mode whatever the umask, never through a symbolic link.
/// SQLite gives the `-wal` and `-shm` files it creates the main file's mode, so they
/// follow; ones left with a looser mode (an older lectord, a umask of 022) are made
/// private again.
public enum DatabaseFile {
    /// 0600, or 0640 with `group` (its members may read the file: they may already ask
    /// HISTORY through the socket).
    public static func mode(group: UInt32?) -> UInt32 { group == nil ? 0o600 : 0o640 }

    /// Creates `path` empty with ``mode(group:)`` when missing; refuses a symbolic link
    /// (also for its `-wal` and `-shm`) or anything but a regular file, and takes the
    /// permission bits beyond the mode away from files of this process's user.
    /// - Throws: ``HistoryError/refused(path:reason:)`` with the reason.
    public static func prepare(_ path: String, group: UInt32?) throws(HistoryError) {
        let mode = mode(group: group)
        for file in [path, path + "-wal", path + "-shm"] {
            guard let status = Syscalls.linkStatus(file) else {
                guard file == path else { continue }
                do { try Syscalls.createEmptyFile(path, mode: mode) } catch {
                    throw .refused(path: path, reason: "cannot create it: \(error.reason)")
                }
                if let group { try? Syscalls.chgrp(path, group: group) }
                continue
            }
            if status.isSymbolicLink {
                throw .refused(path: path, reason: "\(file) is a symbolic link; give the real file's path")
            }
            guard status.isRegular else { throw .refused(path: path, reason: "\(file) is not a regular file") }
            guard status.owner == Syscalls.effectiveUserID, status.permissions & ~mode != 0 else { continue }
            try? Syscalls.chmod(file, mode: mode)
            if let group { try? Syscalls.chgrp(file, group: group) }
        }
    }
}
