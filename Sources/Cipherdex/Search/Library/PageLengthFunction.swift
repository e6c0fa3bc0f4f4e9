internal import CSQLCipher

/// The SQL function `cipherdex_set_page_length(lengths, slot, size)` that keeps
/// `search_page_lengths` (`PageLengths`) in step with FTS4's `search_text_docsize`: `lengths`
/// (a chunk's 1,024 bytes, or NULL for a new chunk) with slot `slot` (0–255) set to the token
/// count FTS4's `size` value holds (its first varint; NULL or empty: 0).
enum PageLengthFunction {
    /// The function's SQL name.
    static let name = "cipherdex_set_page_length"

    private static let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        { context, argc, argv in
            guard let argv, argc == 3 else {
                sqlite3_result_error(context, "cipherdex_set_page_length needs 3 arguments", -1)
                return
            }
            let slot = Int(sqlite3_value_int64(argv[1]))
            guard slot >= 0, slot < PageLengths.chunkPages else {
                sqlite3_result_error(context, "cipherdex_set_page_length: slot out of range", -1)
                return
            }
            var chunk = [UInt8](repeating: 0, count: PageLengths.chunkBytes)
            if sqlite3_value_type(argv[0]) == SQLITE_BLOB, let blob = sqlite3_value_blob(argv[0]),
                Int(sqlite3_value_bytes(argv[0])) == PageLengths.chunkBytes
            {
                chunk.withUnsafeMutableBytes {
                    $0.copyMemory(from: UnsafeRawBufferPointer(start: blob, count: PageLengths.chunkBytes))
                }
            }
            var length: UInt32 = 0
            if sqlite3_value_type(argv[2]) == SQLITE_BLOB, let size = sqlite3_value_blob(argv[2]) {
                let raw = UnsafeRawBufferPointer(start: size, count: Int(sqlite3_value_bytes(argv[2])))
                var reader = VarintReader(raw)
                length = UInt32(truncatingIfNeeded: reader.next() ?? 0)
            }
            withUnsafeBytes(of: length.littleEndian) { bytes in
                for index in 0..<4 { chunk[slot * 4 + index] = bytes[index] }
            }
            chunk.withUnsafeBytes {
                sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), cipherdex_sqlite_transient())
            }
        }

    /// Registers the function on `connection` (per connection, like every SQL function).
    static func register(on connection: Connection) throws {
        let code = sqlite3_create_function_v2(
            connection.handle, name, 3, SQLITE_UTF8 | cipherdex_sqlite_deterministic(), nil, function, nil, nil, nil)
        guard code == SQLITE_OK else { throw connection.error(code: code) }
    }
}
