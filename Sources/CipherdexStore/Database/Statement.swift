internal import CSQLCipher

/// A prepared statement owned by one object and finalized in `deinit`.
final class Statement {
    private let handle: OpaquePointer
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(connection.handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw connection.error(code: code)
        }
        self.handle = statement
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Clears previous bindings and binds `values` to the positional parameters.
    func bind(_ values: [SQLValue]) throws {
        try check(sqlite3_reset(handle))
        try check(sqlite3_clear_bindings(handle))
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null:
                code = sqlite3_bind_null(handle, index)
            case .integer(let integer):
                code = sqlite3_bind_int64(handle, index, integer)
            case .real(let real):
                code = sqlite3_bind_double(handle, index, real)
            case .text(let text):
                code = Self.bindText(text, to: handle, at: index)
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(
                        handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                        cipherdex_sqlite_transient())
                }
            }
            try check(code)
        }
    }

    /// Binds `text` with its length: every UTF-8 byte, a NUL too (a length of -1 stopped at the
    /// first NUL, storing "a\0b" as "a"). An empty string is bound as empty text, never NULL.
    private static func bindText(_ text: String, to handle: OpaquePointer, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            let empty: StaticString = ""
            return sqlite3_bind_text64(
                handle, index,
                UnsafeRawPointer(bytes.baseAddress ?? empty.utf8Start).assumingMemoryBound(to: CChar.self),
                sqlite3_uint64(bytes.count), cipherdex_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
    }

    /// Steps once; true while a row is available.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.error(code: code)
        }
    }

    /// Resets the statement so it can run again.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Number of result columns.
    var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The value of column `index` of the current row.
    func column(_ index: Int) -> SQLValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            // Every byte, a NUL too (read up to the first NUL, "a\0b" came back "a").
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }

    /// The current row, read in place (valid until the next step or reset).
    var rowView: RowView { RowView(handle: handle) }

    /// The current row as an array of values.
    func row() -> [SQLValue] {
        (0..<columnCount).map(column)
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw connection.error(code: code) }
    }
}
