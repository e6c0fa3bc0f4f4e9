/// Every page's token count in chunks of 256 (issue 12, search migration 1004): what
/// `matchinfo(…, 'l')` reads from FTS4's `search_text_docsize`, one row per 256 pages.
///
/// ```sql
/// search_page_lengths(chunk INTEGER PRIMARY KEY,  -- docid >> 8
///                     lengths BLOB NOT NULL)      -- 256 × UInt32 little-endian, slot docid & 255
/// ```
/// A common word's search reads the lengths of most pages: from `search_text_docsize` that was one
/// row, one step and one callback a page (45% of a `patient` search at 1,000,000 pages); here it is
/// one a chunk. FTS4 writes `search_text_docsize` itself, so triggers on it note each changed
/// docid and the chunks are rewritten from `_docsize` before the transaction commits
/// (`SearchTableChanges`): the table changes in the same transaction as FTS4's (a page without a
/// `_docsize` row has 0, as in `DocumentLengths`; a chunk whose pages are all gone is deleted). `SearchSchema.rebuild` drops the triggers before it empties
/// FTS4's tables and drops the old one, and calls `create` again at its end.
enum PageLengths {
    /// Pages per chunk.
    static let chunkPages = 256
    /// Bytes per chunk.
    static let chunkBytes = chunkPages * 4

    /// The prefix of the triggers' names (`SearchTableChanges.triggerNames`).
    static let triggerPrefix = "search_page_lengths"

    /// Drops the triggers (before `SearchSchema.rebuild` empties FTS4's tables; `create` makes them again).
    static func dropTriggers(_ db: Connection) throws {
        try SearchTableChanges.dropTriggers(prefix: triggerPrefix, db: db)
    }

    /// Creates the table (or empties it) and its triggers on `search_text_docsize`, and fills it
    /// from `search_text_docsize`, in the caller's transaction.
    static func create(_ db: Connection) throws {
        try dropTriggers(db)
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS search_page_lengths (chunk INTEGER PRIMARY KEY, lengths BLOB NOT NULL);
            DELETE FROM search_page_lengths;
            """
                + SearchTableChanges.triggersSQL(
                    prefix: triggerPrefix, table: "search_text_docsize",
                    function: SearchTableChanges.functionName, column: "docid"))
        var chunks: [Int64] = []
        try db.forEachRowView("SELECT DISTINCT docid >> 8 FROM search_text_docsize ORDER BY 1") {
            chunks.append($0.integer(0))
        }
        try rewrite(chunks: chunks, db: db)
    }

    /// Rewrites the chunks of `docids` from `search_text_docsize` (what it holds now, so a
    /// savepoint rolled back in between changes nothing), deleting a chunk left all 0.
    static func flush(_ docids: Set<Int64>, db: Connection) throws {
        try rewrite(chunks: Set(docids.map { $0 >> 8 }).sorted(), db: db)
    }

    /// Writes each of `chunks` from what `search_text_docsize` holds now.
    private static func rewrite(chunks: [Int64], db: Connection) throws {
        for chunk in chunks {
            var lengths = [UInt8](repeating: 0, count: chunkBytes)
            try db.forEachRowView(
                "SELECT docid, size FROM search_text_docsize WHERE docid BETWEEN ? AND ?",
                [.integer(chunk << 8), .integer(chunk << 8 | 255)]
            ) { row in
                let slot = Int(row.integer(0) & 255) * 4
                let length = row.withBytes(1) { raw -> UInt32 in
                    var reader = VarintReader(raw)
                    return UInt32(truncatingIfNeeded: reader.next() ?? 0)
                }
                withUnsafeBytes(of: length.littleEndian) { for index in 0..<4 { lengths[slot + index] = $0[index] } }
            }
            if lengths.contains(where: { $0 != 0 }) {
                try db.execute(
                    "INSERT OR REPLACE INTO search_page_lengths (chunk, lengths) VALUES (?, ?)",
                    [.integer(chunk), .blob(lengths)])
            } else {
                try db.execute("DELETE FROM search_page_lengths WHERE chunk = ?", [.integer(chunk)])
            }
        }
    }
}
