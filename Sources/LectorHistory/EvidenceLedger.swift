/// The record of the evidence files lectord wrote in one folder: an SQLite database in
/// that folder (``fileName``), one row per file (its name, size and time). The evidence
/// store writes a row before the file and deletes it after the file, so every file
/// lectord wrote has a row (a row whose file is gone is dropped at the next start):
/// only a file with a row is ever deleted, whatever else lies in the folder.
///
/// It lives with the files it describes, not in the history: a history that is refused,
/// locked, turned off or moved never makes lectord forget or claim a file, and a folder
/// moved as a whole keeps its record. Not thread-safe: its owner serialises the calls.
public final class EvidenceLedger {
    /// The ledger's file in the evidence folder.
    public static let fileName = "lector-evidence.sqlite"
    /// `PRAGMA application_id`: "LCTE".
    public static let applicationID: Int64 = 0x4C43_5445

    /// One evidence file lectord wrote.
    public struct Entry: Equatable, Sendable {
        public var name: String
        public var bytes: Int
        /// When it was written, seconds since 1970.
        public var unixTime: Double

        public init(name: String, bytes: Int, unixTime: Double) {
            self.name = name
            self.bytes = bytes
            self.unixTime = unixTime
        }
    }

    private let database: SQLiteDatabase
    public var path: String { database.path }

    /// Opens (or creates, mode 0600 or 0640 with `group`) the ledger of `folder`.
    /// - Throws: ``HistoryError``: refused (a link…), read-only, another program's file, damaged.
    public init(folder: String, group: UInt32? = nil) throws(HistoryError) {
        let path = folder + "/" + Self.fileName
        try DatabaseFile.prepare(path, group: group)
        do {
            database = try SQLiteDatabase(path: path, readOnly: false)
            if database.isReadOnly { throw HistoryError.readOnly(path: path) }
            database.setBusyTimeout(milliseconds: 1000)
            let application = try database.value("PRAGMA application_id")
            let tables = try database.value("SELECT count(*) FROM sqlite_master")
            if application == .integer(0) && tables == .integer(0) {
                try database.execute("""
                    BEGIN;
                    CREATE TABLE evidence_file (name TEXT PRIMARY KEY, bytes INTEGER NOT NULL, unix_time REAL NOT NULL);
                    PRAGMA application_id = \(Self.applicationID);
                    COMMIT;
                    """)
            } else if application != .integer(Self.applicationID) {
                throw HistoryError.foreign(path: path, reason: "not lectord's evidence ledger")
            }
            // A rollback journal, not a write-ahead log (and its 32 kB index): the ledger
            // shares the evidence's disk, and only lectord's writer thread opens it.
            try database.execute("PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL")
        } catch let error as HistoryError {
            throw error
        } catch let error as SQLiteError {
            throw error.isDamagedFile ? .damaged(path: path, reason: error.message) : .failed(path: path, error)
        } catch {
            throw .failed(path: path, SQLiteError(code: 1, message: "\(error)"))
        }
    }

    /// Every file recorded, oldest first.
    public func entries() throws(HistoryError) -> [Entry] {
        do {
            return try database.rows("SELECT name, bytes, unix_time FROM evidence_file ORDER BY unix_time, name").compactMap { row in
                guard row.count == 3, case let .text(name) = row[0], case let .integer(bytes) = row[1] else { return nil }
                let time: Double = switch row[2] {
                case let .real(value): value
                case let .integer(value): Double(value)
                default: 0
                }
                return Entry(name: name, bytes: Int(bytes), unixTime: time)
            }
        } catch {
            throw .failed(path: path, error)
        }
    }

    /// Records `entry` (before its file is written).
    public func add(_ entry: Entry) throws(HistoryError) {
        do {
            try database.rows("INSERT OR REPLACE INTO evidence_file (name, bytes, unix_time) VALUES (?, ?, ?)",
                              [.text(entry.name), .integer(Int64(entry.bytes)), .real(entry.unixTime)])
        } catch {
            throw .failed(path: path, error)
        }
    }

    /// Forgets `names` (after their files are deleted), in one transaction.
    public func remove(_ names: [String]) throws(HistoryError) {
        guard !names.isEmpty else { return }
        do {
            try database.execute("BEGIN")
            for name in names { try database.rows("DELETE FROM evidence_file WHERE name = ?", [.text(name)]) }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw .failed(path: path, error)
        }
    }
}
