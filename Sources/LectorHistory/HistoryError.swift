import LectorProtocol

/// Why a history database cannot be used, or a reading not kept in it.
public enum HistoryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is not an SQLite database (a corrupt header, or another kind of file).
    case notADatabase(path: String, reason: String)
    /// An SQLite database, but another program's (its `application_id`, or tables without Lector's mark).
    case foreign(path: String, reason: String)
    /// Made by a newer Lector (`user_version` above this release's).
    case newerVersion(path: String, version: Int)
    /// SQLite reports damaged pages (`PRAGMA quick_check`, or a read that found them).
    case damaged(path: String, reason: String)
    /// Refused before SQLite opens it: a symbolic link, not a regular file, or it cannot be created.
    case refused(path: String, reason: String)
    /// The file (or its file system) cannot be written.
    case readOnly(path: String)
    /// Any other SQLite failure (disk full, permissions, a lock held too long).
    case failed(path: String, SQLiteError)

    /// Another connection holds a lock, or the disk is full: the same write may work later.
    public var isPassing: Bool {
        guard case let .failed(_, error) = self else { return false }
        return error.isLocked || error.isDiskFull
    }

    /// The disk is full.
    public var isDiskFull: Bool {
        guard case let .failed(_, error) = self else { return false }
        return error.isDiskFull
    }

    public var description: String {
        switch self {
        case let .notADatabase(path, reason): "\(path) is not a Lector history (not an SQLite database: \(reason))"
        case let .foreign(path, reason): "\(path) is not a Lector history (\(reason))"
        case let .newerVersion(path, version): "\(path) was written by a newer Lector (history version \(version)); refused"
        case let .damaged(path, reason): "\(path) is damaged (\(reason)); move it away to start a new history"
        case let .refused(path, reason): "\(path) is refused: \(reason)"
        case let .readOnly(path): "\(path) is read-only (its permissions or its file system): lectord cannot keep readings in it"
        case let .failed(path, error): "\(path): \(error.message)"
        }
    }
}
