internal import CSQLCipher

/// The current row of a statement being stepped, read in place (`Connection.forEachRowView`):
/// no `SQLValue` array, string or byte copy per row. Valid only during the visit that gets it.
package struct RowView {
    let handle: OpaquePointer

    /// Column `index` as an integer (0 for NULL, SQLite's conversion otherwise).
    package func integer(_ index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    /// What column `index` holds: SQLite's storage class of its value.
    package func storageClass(_ index: Int) -> StorageClass {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    /// SQLite's storage classes (a value's `typeof`).
    package enum StorageClass: Sendable {
        case null, integer, real, text, blob
    }

    /// Column `index`'s bytes as a blob (empty for NULL or an empty value), valid only inside
    /// `body`.
    package func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let column = Int32(index)
        guard let pointer = sqlite3_column_blob(handle, column) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column))))
    }
}
