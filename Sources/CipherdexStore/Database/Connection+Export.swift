internal import CSQLCipher

#if canImport(Glibc)
    import Glibc
#endif

extension Connection {
    /// The schema name the export attaches its target under.
    static let exportSchema = "cipherdex_export"

    /// Writes a copy of this connection's main database into a new file at `path` with
    /// `sqlcipher_export`: encrypted with `key` (SQLCipher's raw-key literal `x'<hex>'`, bound
    /// from secure memory) and `cipher`, or plaintext when `key` is nil. The copy is built table
    /// by table into a fresh file, so no page, free page or old ciphertext of the source is in
    /// it; the schema (virtual tables included) and `user_version` are kept. The file is
    /// complete and synced when this returns. Must not run inside a transaction.
    func exportDatabase(to path: String, key: SecureBytes?, cipher: CipherSettings?) throws {
        let userVersion = try scalar("PRAGMA main.user_version")?.integerValue ?? 0
        let empty = SecureBytes(copying: [UInt8]())
        try (key ?? empty).withUnsafeBytes { keyBytes in
            var statement: OpaquePointer?
            let sql = "ATTACH DATABASE ? AS \(Self.exportSchema) KEY ?"
            let prepared = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
            guard prepared == SQLITE_OK, let statement else { throw error(code: prepared) }
            defer { sqlite3_finalize(statement) }
            var code = sqlite3_bind_text(statement, 1, path, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            guard code == SQLITE_OK else { throw error(code: code) }
            // SQLITE_STATIC: SQLite reads the key from secure memory while the statement runs and
            // keeps no copy of it after the attach (SQLCipher holds the derived key itself).
            code = sqlite3_bind_blob(
                statement, 2, keyBytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(keyBytes.count), nil)
            guard code == SQLITE_OK else { throw error(code: code) }
            code = sqlite3_step(statement)
            guard code == SQLITE_DONE else { throw error(code: code) }
        }
        do {
            if key != nil {
                for pragma in (cipher ?? .default).pragmas {
                    try execute(pragma.replacingOccurrences(of: "PRAGMA ", with: "PRAGMA \(Self.exportSchema)."))
                }
            } else {
                try execute("PRAGMA \(Self.exportSchema).page_size = \(CipherSettings.default.pageSize)")
            }
            // The new file is empty: it can still take incremental auto-vacuum (a store created
            // before it had `auto_vacuum = NONE`; its next generation gives freed pages back).
            try execute("PRAGMA \(Self.exportSchema).auto_vacuum = INCREMENTAL")
            try execute("PRAGMA \(Self.exportSchema).synchronous = FULL")
            _ = try scalar("SELECT sqlcipher_export('\(Self.exportSchema)')")
            try execute("PRAGMA \(Self.exportSchema).user_version = \(userVersion)")
            try execute("DETACH DATABASE \(Self.exportSchema)")
        } catch let failure as DatabaseError {
            try? execute("DETACH DATABASE \(Self.exportSchema)")
            throw Self.exportFailure(failure, path: path)
        }
    }

    /// `sqlcipher_export` reports a failed write to the new file as SQLITE_ERROR with the write's
    /// own message: a full disk or an I/O error gets its code back, naming the new file.
    static func exportFailure(_ failure: DatabaseError, path: String) -> DatabaseError {
        guard case .sqlite(SQLITE_ERROR, _, let message, let systemErrno, _) = failure else { return failure }
        for code in [SQLITE_FULL, SQLITE_IOERR] where message == String(cString: sqlite3_errstr(code)) {
            let errno = systemErrno != 0 ? systemErrno : (code == SQLITE_IOERR ? EIO : 0)
            return .sqlite(code: code, extendedCode: code, message: message, systemErrno: errno, path: path)
        }
        return failure
    }
}
