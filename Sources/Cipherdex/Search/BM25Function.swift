internal import CSQLCipher

/// Registers `BM25` as the SQL function `cipherdex_bm25` (a `@convention(c)` callback through
/// `sqlite3_create_function_v2`).
enum BM25Function {
    /// The callback: argument 0 is the matchinfo blob, the rest are column weights.
    private static let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, argc, argv in
        guard let argv, argc >= 1 else {
            sqlite3_result_error(context, "cipherdex_bm25 needs matchinfo(table, 'pcnalx')", -1)
            return
        }
        let size = Int(sqlite3_value_bytes(argv[0]))
        guard sqlite3_value_type(argv[0]) == SQLITE_BLOB, size % 4 == 0, let blob = sqlite3_value_blob(argv[0]) else {
            sqlite3_result_error(context, "cipherdex_bm25: the first argument must be matchinfo(table, 'pcnalx')", -1)
            return
        }
        let values = (0..<(size / 4)).map { blob.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
        let weights = (1..<Int(argc)).map { sqlite3_value_double(argv[$0]) }
        do {
            sqlite3_result_double(context, try BM25.score(matchInfo: values, weights: weights))
        } catch {
            sqlite3_result_error(context, "cipherdex_bm25: matchinfo is not in 'pcnalx' format", -1)
        }
    }

    /// Registers the function on `connection` (per connection, like every SQL function).
    static func register(on connection: Connection) throws {
        let code = sqlite3_create_function_v2(connection.handle, BM25.functionName, -1,
                                              SQLITE_UTF8 | cipherdex_sqlite_deterministic(),
                                              nil, function, nil, nil, nil)
        guard code == SQLITE_OK else { throw connection.error(code: code) }
    }
}
