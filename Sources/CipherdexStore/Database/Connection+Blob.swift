internal import CSQLCipher
import Foundation

extension Connection {
    /// The bytes of the blob in `table`.`column` of row `rowID` of the main database, read with
    /// SQLite's incremental blob I/O straight into the returned buffer: the only copy of a large
    /// value in memory (reading the column through a statement makes SQLite assemble a buffer of
    /// its own first, then the caller copies it). Reads in this connection's transaction, like
    /// any statement of it. The value must be a blob (a text value would be read as its bytes).
    func blob(table: String, column: String, rowID: Int64) throws -> Data {
        var handle: OpaquePointer?
        let opened = sqlite3_blob_open(self.handle, "main", table, column, rowID, 0, &handle)
        guard opened == SQLITE_OK, let handle else {
            let failure = error(code: opened)
            sqlite3_blob_close(handle)
            throw failure
        }
        defer { sqlite3_blob_close(handle) }
        let count = Int(sqlite3_blob_bytes(handle))
        var bytes = Data(count: count)
        guard count > 0 else { return bytes }
        let read = bytes.withUnsafeMutableBytes { sqlite3_blob_read(handle, $0.baseAddress, Int32(count), 0) }
        guard read == SQLITE_OK else { throw error(code: read) }
        return bytes
    }
}
