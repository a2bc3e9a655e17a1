import CSQLite
import LectorProtocol

/// Lector's reading history: an SQLite database of MATCH messages, one row each, with
/// the members asked about most as columns and the whole message as published
/// (`message`, JSON), so a reply carries every member (also those of later releases).
///
/// Written by one connection (lectord's writer thread; WAL, `synchronous=NORMAL`: a
/// process killed with SIGKILL loses at most the transaction it was in), read by others
/// at the same time (lectord's HISTORY replies, `lector history --db`). A file that is
/// not an SQLite database, another program's database or a damaged one is refused.
/// Not thread-safe: each owner serialises its calls.
public final class HistoryStore {
    /// `PRAGMA application_id`: "LCTR".
    public static let applicationID: Int64 = 0x4C43_5452
    /// `PRAGMA user_version` of the schema this release writes.
    public static let schemaVersion: Int64 = 1

    private let database: SQLiteDatabase
    public var path: String { database.path }

    /// Opens (and for writing, creates) the history at `path`.
    /// - Parameter readOnly: never writes the file; a missing file is an error.
    /// - Throws: ``HistoryError``: not a database, another program's, a newer schema, damaged.
    public init(path: String, readOnly: Bool) throws(HistoryError) {
        do {
            database = try SQLiteDatabase(path: path, readOnly: readOnly)
        } catch {
            throw Self.classify(error, path: path)
        }
        database.setBusyTimeout(milliseconds: 5000)
        try prepare(readOnly: readOnly)
    }

    /// Checks the file is Lector's (and whole), and creates the schema in a new file.
    private func prepare(readOnly: Bool) throws(HistoryError) {
        let application: Int64, version: Int64, tables: Int64
        do {
            application = try integer("PRAGMA application_id")
            version = try integer("PRAGMA user_version")
            tables = try integer("SELECT count(*) FROM sqlite_master")
        } catch {
            throw Self.classify(error, path: path)
        }
        if application != Self.applicationID {
            if application != 0 {
                throw .foreign(path: path, reason: "another program's SQLite database, application_id \(application)")
            }
            if tables > 0 { throw .foreign(path: path, reason: "an SQLite database with other tables") }
            if readOnly { throw .foreign(path: path, reason: "an empty database") }
        } else if version > Self.schemaVersion {
            throw .newerVersion(path: path, version: Int(version))
        }
        guard !readOnly else { return }
        let check: SQLiteValue
        do { check = try database.value("PRAGMA quick_check") } catch { throw Self.classify(error, path: path) }
        guard check == .text("ok") else { throw .damaged(path: path, reason: "quick_check: \(check)") }
        do {
            try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
            if application == 0 { try createSchema() }
        } catch {
            throw Self.classify(error, path: path)
        }
    }

    private func createSchema() throws(SQLiteError) {
        try database.execute("""
            BEGIN;
            CREATE TABLE reading (
                id INTEGER PRIMARY KEY,
                time TEXT NOT NULL,
                unix_time REAL NOT NULL,
                device TEXT NOT NULL,
                zone TEXT,
                rule TEXT NOT NULL,
                text TEXT NOT NULL,
                read TEXT,
                known TEXT,
                known_name TEXT,
                confidence REAL NOT NULL,
                rejected TEXT,
                evidence_frame TEXT,
                evidence_crop TEXT,
                message TEXT NOT NULL
            );
            CREATE INDEX reading_time ON reading (time);
            CREATE INDEX reading_device_rule_time ON reading (device, rule, time);
            PRAGMA application_id = \(Self.applicationID);
            PRAGMA user_version = \(Self.schemaVersion);
            COMMIT;
            """)
    }

    /// Keeps `match` (one transaction).
    /// - Parameter unixTime: its frame's capture time, seconds since 1970 (what pruning compares).
    public func insert(_ match: MatchMessage, unixTime: Double) throws(HistoryError) {
        let known = match.known?.entry
        let optional = { (text: String?) in text.map(SQLiteValue.text) ?? .null }
        do {
            try database.rows("""
                INSERT INTO reading (time, unix_time, device, zone, rule, text, read, known, known_name, confidence,
                                     rejected, evidence_frame, evidence_crop, message)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(match.time), .real(unixTime), .text(match.device), optional(match.zone), .text(match.rule),
                      .text(match.text), optional(match.read), optional(known?.text), optional(known?.name),
                      .real(match.confidence), optional(match.rejected), optional(match.evidence?.frame),
                      optional(match.evidence?.crop), .text(JSONWriter.string(match.json))])
        } catch {
            throw Self.classify(error, path: path)
        }
    }

    /// The MATCHes `query` asks for, newest first.
    /// - Throws: ``HistoryError`` when the database cannot be read (or a row is not a MATCH).
    public func matches(_ query: HistoryQuery) throws(HistoryError) -> [MatchMessage] {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let device = query.device { conditions.append("device = ?"); values.append(.text(device)) }
        if let rule = query.rule { conditions.append("rule = ?"); values.append(.text(rule)) }
        if let since = query.since { conditions.append("time >= ?"); values.append(.text(Self.comparable(since))) }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        values.append(.integer(Int64(query.limit)))
        let rows: [[SQLiteValue]]
        do {
            rows = try database.rows("SELECT message FROM reading \(filter) ORDER BY time DESC, id DESC LIMIT ?", values)
        } catch {
            throw Self.classify(error, path: path)
        }
        var found: [MatchMessage] = []
        for row in rows {
            guard case let .text(line) = row.first else { continue }
            do {
                found.append(try MatchMessage(line: Array(line.utf8)))
            } catch {
                throw .damaged(path: path, reason: "a row is not a MATCH: \(error)")
            }
        }
        return found
    }

    /// The newest accepted MATCH of each rule of `device` (by zone and name), with its
    /// capture time (seconds since 1970): the meters' last values at start.
    /// - Throws: ``HistoryError`` when the database cannot be read (or a row is not a MATCH).
    public func lastAccepted(device: String) throws(HistoryError) -> [(match: MatchMessage, unixTime: Double)] {
        let rows: [[SQLiteValue]]
        do {
            rows = try database.rows("""
                SELECT message, unix_time FROM reading WHERE id IN
                    (SELECT max(id) FROM reading WHERE device = ? AND rejected IS NULL GROUP BY zone, rule)
                """, [.text(device)])
        } catch {
            throw Self.classify(error, path: path)
        }
        var found: [(match: MatchMessage, unixTime: Double)] = []
        for row in rows {
            guard row.count == 2, case let .text(line) = row[0], case let .real(unixTime) = row[1] else { continue }
            do {
                found.append((try MatchMessage(line: Array(line.utf8)), unixTime))
            } catch {
                throw .damaged(path: path, reason: "a row is not a MATCH: \(error)")
            }
        }
        return found
    }

    /// Deletes the readings captured before `unixTime` (`history_keep_days`).
    /// - Returns: how many were deleted.
    @discardableResult
    public func prune(before unixTime: Double) throws(HistoryError) -> Int {
        do {
            try database.rows("DELETE FROM reading WHERE unix_time < ?", [.real(unixTime)])
            return Int(try integer("SELECT changes()"))
        } catch {
            throw Self.classify(error, path: path)
        }
    }

    /// `since` comparable as text with MATCH `time` (`…:00.000Z`): a whole second written
    /// `…:00Z` would sort after the readings within that second.
    static func comparable(_ since: String) -> String {
        guard since.count == 20, since.hasSuffix("Z") else { return since }
        return String(since.dropLast()) + ".000Z"
    }

    private func integer(_ sql: String) throws(SQLiteError) -> Int64 {
        if case let .integer(value) = try database.value(sql) { return value }
        return 0
    }

    /// SQLite's failure as a ``HistoryError``: a file that is no database, or damaged pages, say so.
    private static func classify(_ error: SQLiteError, path: String) -> HistoryError {
        switch error.code & 0xff {
        case SQLITE_NOTADB: .notADatabase(path: path, reason: error.message)
        case SQLITE_CORRUPT: .damaged(path: path, reason: error.message)
        default: .failed(path: path, error)
        }
    }
}
