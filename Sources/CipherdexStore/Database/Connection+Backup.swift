internal import CSQLCipher

extension Connection {
    /// Copies this connection's main database page by page into `destination`'s main database
    /// with SQLite's online backup API (`sqlite3_backup_*`), `pagesPerStep` pages at a time.
    ///
    /// Both connections must use the same key and cipher settings (SQLCipher copies the decrypted
    /// pages and encrypts them again for the destination; it refuses other keys). When this
    /// connection is already inside a read transaction, the copy reads that transaction's
    /// snapshot for every step, so it is the database as of one commit whatever other
    /// connections write meanwhile (they are never blocked: in WAL mode a reader blocks no
    /// writer). `afterStep` gets the pages copied so far and the total, and may throw to stop
    /// (the destination is then incomplete and must be discarded).
    func copyPages(
        into destination: Connection, pagesPerStep: Int32 = 256, afterStep: (_ copied: Int, _ total: Int) throws -> Void
    ) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.error(code: sqlite3_errcode(destination.handle))
        }
        var stepError: (any Error)?
        while true {
            let code = sqlite3_backup_step(backup, pagesPerStep)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_OK else { break }
            let total = Int(sqlite3_backup_pagecount(backup))
            do {
                try afterStep(total - Int(sqlite3_backup_remaining(backup)), total)
            } catch {
                stepError = error
                break
            }
        }
        // `finish` reports the first error of any step (and leaves it on the destination).
        let finished = sqlite3_backup_finish(backup)
        if let stepError { throw stepError }
        guard finished == SQLITE_OK else { throw destination.error(code: finished) }
    }
}
