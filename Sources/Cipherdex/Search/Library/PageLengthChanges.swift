internal import CSQLCipher
import Synchronization

/// What keeps `search_page_lengths` (`PageLengths`) in step with FTS4's `search_text_docsize` on
/// one connection: the SQL function `cipherdex_page_length_changed(docid)` the triggers on
/// `search_text_docsize` call notes each changed docid; before its transaction commits
/// (`Connection.willCommit`) `PageLengths.flush` rewrites their chunks from `_docsize` itself; a
/// commit with changes left unwritten (a write outside `Connection.transaction`) is refused by
/// the commit hook, and a rollback forgets them.
///
/// A trigger that wrote the chunk itself cost 200–330 µs a page in SQLite 3.15 (each statement's
/// write to a 1 KiB row of a 16 KiB page), a third of indexing's CPU; noting a docid costs
/// nothing measurable, and the flush writes each chunk once per transaction.
final class PageLengthChanges: Sendable {
    /// The function's SQL name.
    static let functionName = "cipherdex_page_length_changed"

    private let docids = Mutex<Set<Int64>>([])

    /// Notes a changed docid.
    func note(_ docid: Int64) { docids.withLock { _ = $0.insert(docid) } }

    /// The noted docids, forgotten.
    func take() -> Set<Int64> {
        docids.withLock { current in
            defer { current = [] }
            return current
        }
    }

    /// Whether any docid is noted.
    var isEmpty: Bool { docids.withLock { $0.isEmpty } }

    /// Forgets every noted docid.
    func forget() { docids.withLock { $0 = [] } }

    private static let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        { context, argc, argv in
            guard let argv, argc == 1, let data = sqlite3_user_data(context) else {
                sqlite3_result_error(context, "cipherdex_page_length_changed needs a docid", -1)
                return
            }
            Unmanaged<PageLengthChanges>.fromOpaque(data).takeUnretainedValue().note(sqlite3_value_int64(argv[0]))
            sqlite3_result_null(context)
        }

    /// Refuses a commit while changes are unwritten (nonzero: the commit becomes a rollback).
    private static let commitHook: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { data in
        guard let data else { return 0 }
        return Unmanaged<PageLengthChanges>.fromOpaque(data).takeUnretainedValue().isEmpty ? 0 : 1
    }

    private static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        guard let data else { return }
        Unmanaged<PageLengthChanges>.fromOpaque(data).release()
    }

    private static let rollbackHook: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        guard let data else { return }
        Unmanaged<PageLengthChanges>.fromOpaque(data).takeUnretainedValue().forget()
    }

    /// Registers the function and the hooks on `connection`.
    static func register(on connection: Connection) throws {
        let changes = PageLengthChanges()
        // The function owns one reference (released by SQLite with the function, also when
        // registering fails); `willCommit` another, for as long as the Connection object lives.
        let data = Unmanaged.passRetained(changes).toOpaque()
        let code = sqlite3_create_function_v2(
            connection.handle, functionName, 1, SQLITE_UTF8, data, function, nil, nil, release)
        guard code == SQLITE_OK else { throw connection.error(code: code) }
        _ = sqlite3_commit_hook(connection.handle, commitHook, data)
        _ = sqlite3_rollback_hook(connection.handle, rollbackHook, data)
        connection.willCommit.append { db in try PageLengths.flush(changes.take(), db: db) }
    }
}
