import CSQLite

/// Why an SQLite call failed: its result code and SQLite's own message.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SQLite's primary result code (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, `SQLITE_FULL`…).
    public let code: Int32
    public let message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// Another connection holds a lock (`SQLITE_BUSY`, `SQLITE_LOCKED`): try again later.
    public var isLocked: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }

    /// The disk is full (`SQLITE_FULL`; a write or a WAL index that could not grow, `SQLITE_IOERR_…`).
    public var isDiskFull: Bool { code & 0xff == SQLITE_FULL || code & 0xff == SQLITE_IOERR }

    /// The file is not a database, or its pages are damaged.
    public var isDamagedFile: Bool { code & 0xff == SQLITE_NOTADB || code & 0xff == SQLITE_CORRUPT }

    public var description: String { message }
}

/// A value bound to a statement's parameter or read from a row.
public enum SQLiteValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// One SQLite connection (the only Swift owner of libsqlite3's handles: the connection
/// and its prepared statements). Not thread-safe: its owner serialises the calls.
/// The corresponding C functions are `sqlite3_open_v2`, `sqlite3_prepare_v2`,
/// `sqlite3_step` and `sqlite3_close_v2`.
public final class SQLiteDatabase {
    private let handle: OpaquePointer
    public let path: String

    /// Opens `path`; `readOnly` never writes it (nor creates it), else it is created when
    /// missing (``DatabaseFile/prepare(_:group:)`` refuses a link there first; links in
    /// the folders above are followed, as `SQLITE_OPEN_NOFOLLOW` would not).
    /// - Throws: ``SQLiteError`` when the file cannot be opened.
    public init(path: String, readOnly: Bool) throws(SQLiteError) {
        var opened: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw SQLiteError(code: status, message: "\(path): \(message)")
        }
        handle = opened
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Whether SQLite opened the file read-only although writing was asked for (the file
    /// or its file system is read-only). The corresponding C function is `sqlite3_db_readonly`.
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Waits up to `milliseconds` for another connection's lock before failing with `SQLITE_BUSY`.
    public func setBusyTimeout(milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    /// Runs `sql` (one statement) with `values` bound to its `?` parameters and returns
    /// its rows, each a column list.
    @discardableResult
    public func rows(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        var statement: OpaquePointer?
        var status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status) }
        defer { sqlite3_finalize(statement) }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .null: status = sqlite3_bind_null(statement, position)
            case let .integer(number): status = sqlite3_bind_int64(statement, position, number)
            case let .real(number): status = sqlite3_bind_double(statement, position, number)
            case let .text(text): status = sqlite3_bind_text(statement, position, text, -1, Self.transient)
            }
            guard status == SQLITE_OK else { throw failure(status) }
        }
        var rows: [[SQLiteValue]] = []
        while true {
            status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw failure(status) }
            rows.append((0..<sqlite3_column_count(statement)).map { column(statement, $0) })
        }
    }

    /// Runs `sql`, which may hold several statements without parameters.
    public func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(status) }
    }

    /// The first column of the first row of `sql`, or `.null` without a row.
    public func value(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteValue {
        try rows(sql, values).first?.first ?? .null
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: .real(sqlite3_column_double(statement, index))
        case SQLITE_NULL: .null
        default: sqlite3_column_text(statement, index).map { .text(String(cString: $0)) } ?? .null
        }
    }

    private func failure(_ status: Int32) -> SQLiteError {
        SQLiteError(code: status, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// SQLITE_TRANSIENT (a macro Swift cannot import): SQLite copies the bound text.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
