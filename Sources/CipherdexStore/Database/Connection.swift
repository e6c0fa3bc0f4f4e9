internal import CSQLCipher
internal import CSQLiteVFS

/// One SQLCipher connection, owned by this object and closed in `deinit` (GRDB's model): every
/// return code is checked, and each connection is configured explicitly on open.
package final class Connection {
    /// How a connection is opened.
    enum Mode {
        /// Read-write with WAL, the store's writer.
        case writer
        /// Read-write file access with `query_only`, a concurrent WAL reader.
        case reader
        /// `immutable=1`, read-only: no lock, no -shm, no WAL recovery, no write of any kind, and
        /// only page 1 is read on open. Used to verify that the data key decrypts the database
        /// before anything else opens it.
        case verifyOnly
        /// Read-only, WAL-aware: sees a crash-left write-ahead log (and rebuilds its index in
        /// `-shm`, the one file it may write) but never checkpoints or writes the database or the
        /// log. Used to check a crash-left store before the writer opens it.
        case readOnlyProbe
        /// `immutable=1`, read-only, `query_only`: the connections of a store opened read-only
        /// (its log is empty: nothing of it is ignored). Reads every page as a reader does.
        case immutableReader
    }

    /// The open handle; nil once `close()` has run.
    private var openHandle: OpaquePointer?
    /// The database file this connection opened.
    package let path: String
    private var statementCache: [String: Statement] = [:]
    /// Work a feature does at the end of every transaction `transaction` runs, in it, before
    /// `COMMIT` (a throw rolls the transaction back): search brings its page lengths up to date.
    package var willCommit: [(Connection) throws -> Void] = []
    /// While a read runs on a `readsOnWriter` pool's writer: the pool's second connection, for
    /// helper threads of that read, and the read's number (`ReadCompanion.read(during:_:)`).
    package internal(set) var readCompanion: (companion: ReadCompanion, read: Int)?

    /// The open handle (a closed connection is a programming error: the pool never hands one out).
    package var handle: OpaquePointer {
        guard let openHandle else { preconditionFailure("use of a closed connection to \(path)") }
        return openHandle
    }

    /// Opens `path`; with `key` (the data key as SQLCipher's raw-key literal `x'<hex>'`, see
    /// `SecureBytes.sqlcipherRawKeyLiteral()`) and `cipher`, the database is encrypted.
    /// Throws `DatabaseError` with SQLITE_NOTADB when the key does not decrypt page 1.
    init(
        path: String, mode: Mode, key: SecureBytes?, cipher: CipherSettings?, create: Bool = false,
        cacheSizeKiB: Int = 2048
    ) throws {
        var flags: Int32 = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        var filename = path
        switch mode {
        case .writer, .reader:
            flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        case .verifyOnly, .immutableReader:
            flags |= SQLITE_OPEN_READONLY
            filename = "file:" + Self.uriEscaped(path) + "?immutable=1"
        case .readOnlyProbe:
            flags |= SQLITE_OPEN_READONLY
        }
        var db: OpaquePointer?
        cipherdex_vfs_reset_read_failure()
        // Cipherdex's VFS: the default one, but a full disk makes a wal-index map fail with
        // SQLITE_FULL instead of a write to its memory raising SIGBUS (CSQLiteVFS.h).
        let code = sqlite3_open_v2(filename, &db, flags, cipherdex_vfs_name())
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            let systemErrno = db.map { sqlite3_system_errno($0) } ?? 0
            if let db { sqlite3_close_v2(db) }
            throw DatabaseError.sqlite(
                code: code & 0xff, extendedCode: code, message: message, systemErrno: systemErrno, path: path)
        }
        self.openHandle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        do {
            try configure(mode: mode, key: key, cipher: cipher, create: create, cacheSizeKiB: cacheSizeKiB)
        } catch let error as DatabaseError {
            throw Self.readFailure(behind: error, path: path)
        }
    }

    /// `error` itself, or, when a read of a database file failed on this thread since the
    /// connection began to open and `error` says the database does not decrypt or is malformed
    /// (SQLCipher takes a failed read of the salt for a new database, whose first page then
    /// does not decrypt), that read's input/output error (`SQLITE_IOERR_READ` with its `errno`).
    private static func readFailure(behind error: DatabaseError, path: String) -> DatabaseError {
        let failedRead = readFailure
        let damage = [notADatabaseCode, corruptCode, errorCode].contains(error.code)
        guard failedRead != 0, damage else { return error }
        return .sqlite(
            code: SQLITE_IOERR, extendedCode: SQLITE_IOERR | (1 << 8), message: "disk I/O error",
            systemErrno: failedRead,
            path: path)
    }

    /// Keys and configures a newly opened connection for `mode`, and reads its first page.
    private func configure(mode: Mode, key: SecureBytes?, cipher: CipherSettings?, create: Bool, cacheSizeKiB: Int)
        throws
    {
        let db = handle
        if let key {
            let keyCode = key.withUnsafeBytes { sqlite3_key(db, $0.baseAddress, Int32($0.count)) }
            guard keyCode == SQLITE_OK else { throw error(code: keyCode) }
            for pragma in (cipher ?? .default).pragmas {
                try execute(pragma)
            }
        }
        if key == nil && create {
            // Unencrypted stores use the same page size as encrypted ones (set before any write).
            try execute("PRAGMA page_size = \(CipherSettings.default.pageSize)")
        }
        if create && mode == .writer {
            // Freed pages can be given back (`PRAGMA incremental_vacuum`): only settable before
            // the first write (page 1 fixes the mode), so before `journal_mode = WAL` below.
            try execute("PRAGMA auto_vacuum = INCREMENTAL")
        }
        // Never let SQLite spill plaintext into temporary files.
        try execute("PRAGMA temp_store = MEMORY")
        try execute("PRAGMA cache_size = -\(max(cacheSizeKiB, 64))")
        // The first read of page 1: fails with SQLITE_NOTADB for a wrong key or a damaged header.
        // `user_version` reads page 1 alone; the schema read needs every page of sqlite_master,
        // which an immutable connection may see mid-checkpoint (it ignores the WAL).
        if mode == .verifyOnly {
            _ = try scalar("PRAGMA user_version")
        } else {
            _ = try scalar("SELECT count(*) FROM sqlite_master")
        }
        switch mode {
        case .writer:
            try execute("PRAGMA secure_delete = ON")
            try execute("PRAGMA foreign_keys = ON")
            try execute("PRAGMA busy_timeout = 5000")
            let journal = try scalar("PRAGMA journal_mode = WAL")
            guard journal?.textValue?.lowercased() == "wal" else {
                throw DatabaseError.sqlite(
                    code: SQLITE_ERROR, extendedCode: SQLITE_ERROR, message: "could not enable WAL", path: path)
            }
            try execute("PRAGMA synchronous = FULL")
        case .reader:
            try execute("PRAGMA secure_delete = ON")
            try execute("PRAGMA foreign_keys = ON")
            try execute("PRAGMA busy_timeout = 5000")
            try execute("PRAGMA query_only = ON")
        case .immutableReader:
            try execute("PRAGMA foreign_keys = ON")
            try execute("PRAGMA query_only = ON")
        case .verifyOnly, .readOnlyProbe:
            break
        }
    }

    deinit {
        close()
    }

    /// Finalizes every statement and closes the handle (idempotent). Once it returns, SQLite
    /// holds no lock and no file of this connection: the store's lock may be released.
    func close() {
        guard let db = openHandle else { return }
        statementCache.removeAll()
        // Statements not in the cache (scalar, iterators) are finalized by their owners before
        // this runs; close_v2 defers the close until the last one goes, close reports it.
        if sqlite3_close(db) != SQLITE_OK {
            sqlite3_close_v2(db)
        }
        openHandle = nil
    }

    private static func uriEscaped(_ path: String) -> String {
        var result = ""
        for scalar in path.unicodeScalars {
            switch scalar {
            case "%": result += "%25"
            case "?": result += "%3f"
            case "#": result += "%23"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Builds an error from `code` and the connection's current message.
    package func error(code: Int32) -> DatabaseError {
        let extended = sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        return .sqlite(
            code: code & 0xff, extendedCode: extended, message: message, systemErrno: sqlite3_system_errno(handle),
            path: path)
    }

    /// Runs one or more SQL statements that take no parameters.
    package func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code: code) }
    }

    /// Runs one statement with positional parameters, stepping through any rows.
    package func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        while try statement.step() {}
        statement.reset()
    }

    /// All rows of a query.
    package func rows(_ sql: String, _ arguments: [SQLValue] = []) throws -> [[SQLValue]] {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        var result: [[SQLValue]] = []
        while try statement.step() {
            result.append(statement.row())
        }
        return result
    }

    /// Visits each row of a query without collecting them.
    package func forEachRow(_ sql: String, _ arguments: [SQLValue] = [], _ body: ([SQLValue]) throws -> Void) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        while try statement.step() {
            try body(statement.row())
        }
    }

    /// Visits each row of a query in place (`RowView`: nothing is copied unless `body` does),
    /// for scans over many rows.
    package func forEachRowView(_ sql: String, _ arguments: [SQLValue] = [], _ body: (RowView) throws -> Void) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        while try statement.step() {
            try body(statement.rowView)
        }
    }

    /// The first column of the first row, or nil when there is no row.
    package func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue? {
        let statement = try Statement(connection: self, sql: sql)
        try statement.bind(arguments)
        // Not `step() ? column(0) : nil`: SQLValue is ExpressibleByNilLiteral, so that `nil`
        // would be `.null`, and a query without rows would look like one row holding NULL.
        guard try statement.step() else { return nil }
        return statement.column(0)
    }

    /// A prepared statement kept for reuse on this connection.
    func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try Statement(connection: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// The rowid of the last insert.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed since the connection opened (a cheap way to tell whether a step wrote).
    package var totalChanges: Int { Int(sqlite3_total_changes(handle)) }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether a transaction is open.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` for writers), committing on return and
    /// rolling back on throw. Nested calls join the outer transaction.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction { return try body() }
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            for hook in willCommit { try hook(self) }
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// The SQLite library version this process uses.
    static var sqliteVersion: String { String(cString: sqlite3_libversion()) }

    /// SQLITE_NOTADB: the file is not a database, or the key is wrong.
    static let notADatabaseCode = SQLITE_NOTADB
    /// SQLITE_ERROR: a generic error (SQLCipher 3 reports a page that fails its HMAC so).
    static let errorCode = SQLITE_ERROR
    /// SQLITE_CORRUPT: a page or a record is malformed.
    static let corruptCode = SQLITE_CORRUPT
    /// SQLITE_NOMEM: SQLite could not allocate memory.
    static let noMemoryCode = SQLITE_NOMEM
    /// SQLITE_FULL: the disk (or quota) is full.
    static let fullCode = SQLITE_FULL
    /// A file SQLite needs (the database, its `-wal` or `-shm`) cannot be opened or created.
    static let cantOpenCode = SQLITE_CANTOPEN
    /// SQLITE_READONLY: the database cannot be written.
    static let readOnlyCode = SQLITE_READONLY
    /// SQLITE_READONLY_ROLLBACK: a rollback journal beside the database needs rolling back,
    /// which a read-only connection cannot do.
    static let readOnlyRollbackCode = Int32(SQLITE_READONLY) | (3 << 8)
    /// SQLITE_IOERR: a system call on a file of the database failed (`systemErrno` says how).
    static let ioErrorCode = SQLITE_IOERR
    /// SQLITE_IOERR_NOMEM: SQLite could not allocate memory during a read or write.
    static let ioErrorNoMemoryCode = SQLITE_IOERR | (12 << 8)

    /// Forgets the failed read `readFailure` reports, for this thread.
    static func resetReadFailure() { cipherdex_vfs_reset_read_failure() }

    /// The `errno` of the first read of a database file on this thread that failed since
    /// `resetReadFailure` (or since a connection began to open), 0 when none (CSQLiteVFS.h).
    static var readFailure: Int32 { cipherdex_vfs_read_failure() }

    /// SQLITE_BUSY and SQLITE_LOCKED: another connection holds a lock.
    static let busyCodes: Set<Int32> = [SQLITE_BUSY, SQLITE_LOCKED]
}
