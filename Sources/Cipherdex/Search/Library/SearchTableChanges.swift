internal import CSQLCipher
import Synchronization

/// What keeps search's derived tables in step on one connection: `search_page_lengths`
/// (`PageLengths`) with FTS4's `search_text_docsize`, and `search_page_runs` (`PageRuns`) with
/// `search_pages`. Their triggers call `cipherdex_page_length_changed(docid)` and
/// `cipherdex_page_row_changed(uid)`, which note the docid or UID; before the transaction commits
/// (`Connection.willCommit`) `PageLengths.flush` and `PageRuns.flush` rewrite what was noted from
/// the tables themselves; a commit with changes left unwritten (a write outside
/// `Connection.transaction`) is refused by the commit hook, and a rollback forgets them.
///
/// A trigger that wrote the chunk itself cost 200–330 µs a page in SQLite 3.15 (each statement's
/// write to a 1 KiB row of a 16 KiB page), a third of indexing's CPU; noting a docid costs
/// nothing measurable, and the flush writes each chunk (and each UID's runs) once per transaction.
final class SearchTableChanges: Sendable {
    /// The SQL name of the function the `search_text_docsize` triggers call.
    static let functionName = "cipherdex_page_length_changed"
    /// The SQL name of the function the `search_pages` triggers call.
    static let pageRowFunctionName = "cipherdex_page_row_changed"

    private struct Noted {
        var docids: Set<Int64> = []
        /// By their bytes: two UIDs that are one text in two Unicode normalizations are two rows'
        /// UIDs (as a `Set<String>`, the second noted was dropped and its runs never written).
        var uids: Set<UTF8Key> = []
    }

    private let noted = Mutex<Noted>(Noted())

    /// Notes a docid whose length changed.
    func note(_ docid: Int64) { noted.withLock { _ = $0.docids.insert(docid) } }

    /// Notes a UID whose `search_pages` rows changed.
    func note(uid: String) { noted.withLock { _ = $0.uids.insert(UTF8Key(uid)) } }

    /// The noted docids, forgotten.
    func take() -> Set<Int64> {
        noted.withLock { current in
            defer { current.docids = [] }
            return current.docids
        }
    }

    /// The noted UIDs, forgotten.
    func takeUIDs() -> [String] {
        noted.withLock { current in
            defer { current.uids = [] }
            return current.uids.map(\.text)
        }
    }

    /// Whether nothing is noted.
    var isEmpty: Bool { noted.withLock { $0.docids.isEmpty && $0.uids.isEmpty } }

    /// Forgets everything noted.
    func forget() { noted.withLock { $0 = Noted() } }

    private static let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        { context, argc, argv in
            guard let argv, argc == 1, let data = sqlite3_user_data(context) else {
                sqlite3_result_error(context, "cipherdex_page_length_changed needs a docid", -1)
                return
            }
            Unmanaged<SearchTableChanges>.fromOpaque(data).takeUnretainedValue().note(sqlite3_value_int64(argv[0]))
            sqlite3_result_null(context)
        }

    private static let pageRowFunction:
        @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, argc, argv in
            guard let argv, argc == 1, let data = sqlite3_user_data(context),
                sqlite3_value_type(argv[0]) == SQLITE_TEXT, let text = sqlite3_value_text(argv[0])
            else {
                sqlite3_result_error(context, "cipherdex_page_row_changed needs a UID", -1)
                return
            }
            let uid = String(
                decoding: UnsafeRawBufferPointer(start: text, count: Int(sqlite3_value_bytes(argv[0]))), as: UTF8.self)
            Unmanaged<SearchTableChanges>.fromOpaque(data).takeUnretainedValue().note(uid: uid)
            sqlite3_result_null(context)
        }

    /// Refuses a commit while changes are unwritten (nonzero: the commit becomes a rollback).
    private static let commitHook: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { data in
        guard let data else { return 0 }
        return Unmanaged<SearchTableChanges>.fromOpaque(data).takeUnretainedValue().isEmpty ? 0 : 1
    }

    private static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        guard let data else { return }
        Unmanaged<SearchTableChanges>.fromOpaque(data).release()
    }

    private static let rollbackHook: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        guard let data else { return }
        Unmanaged<SearchTableChanges>.fromOpaque(data).takeUnretainedValue().forget()
    }

    /// The names of the three triggers `triggersSQL` writes for `prefix`.
    static func triggerNames(prefix: String) -> [String] {
        ["insert", "update", "delete"].map { "\(prefix)_\($0)" }
    }

    /// Drops the three triggers of `prefix` where they exist.
    static func dropTriggers(prefix: String, db: Connection) throws {
        for name in triggerNames(prefix: prefix) { try db.execute("DROP TRIGGER IF EXISTS \(name)") }
    }

    /// The SQL of the three triggers `<prefix>_insert`, `_update` and `_delete` on `table` that
    /// pass each changed row's `column` (old and new) to the SQL function `function`.
    static func triggersSQL(prefix: String, table: String, function: String, column: String) -> String {
        """
        CREATE TRIGGER \(prefix)_insert AFTER INSERT ON \(table) BEGIN
            SELECT \(function)(new.\(column));
        END;
        CREATE TRIGGER \(prefix)_update AFTER UPDATE ON \(table) BEGIN
            SELECT \(function)(old.\(column));
            SELECT \(function)(new.\(column));
        END;
        CREATE TRIGGER \(prefix)_delete AFTER DELETE ON \(table) BEGIN
            SELECT \(function)(old.\(column));
        END;
        """
    }

    /// Registers the functions and the hooks on `connection`.
    static func register(on connection: Connection) throws {
        let changes = SearchTableChanges()
        // Each function owns one reference (released by SQLite with the function, also when
        // registering fails); `willCommit` another, for as long as the Connection object lives.
        for (name, body) in [(functionName, function), (pageRowFunctionName, pageRowFunction)] {
            let data = Unmanaged.passRetained(changes).toOpaque()
            let code = sqlite3_create_function_v2(
                connection.handle, name, 1, SQLITE_UTF8, data, body, nil, nil, release)
            guard code == SQLITE_OK else { throw connection.error(code: code) }
        }
        let data = Unmanaged.passUnretained(changes).toOpaque()
        _ = sqlite3_commit_hook(connection.handle, commitHook, data)
        _ = sqlite3_rollback_hook(connection.handle, rollbackHook, data)
        connection.willCommit.append { db in
            try PageLengths.flush(changes.take(), db: db)
            try PageRuns.flush(changes.takeUIDs(), db: db)
        }
    }
}
