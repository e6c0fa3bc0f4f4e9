/// `search_pages` in runs of consecutive rows (issue 12, search migration 1005): what a search
/// needs to describe its best rows, in a table a few hundred times smaller.
///
/// ```sql
/// search_page_runs(first INTEGER PRIMARY KEY,  -- the run's first rowid (= FTS docid)
///                  count INTEGER NOT NULL,      -- rowids first ..< first + count
///                  uid TEXT NOT NULL,
///                  page_index INTEGER NOT NULL, -- of `first`; one more for each next rowid
///                  kind INTEGER NOT NULL, ordinal INTEGER NOT NULL, is_ocr INTEGER NOT NULL)
/// search_page_runs_uid ON search_page_runs (uid)
/// ```
/// Rows `r` and `r + 1` of `search_pages` share a run when they have the same uid, kind, ordinal
/// and OCR flag and `r + 1` is the next page. A document's pages are written one after another, so
/// a 100-page PDF is one run: describing the 500 best of 1,000,000 pages reads a few dozen
/// 16 KiB pages of runs instead of about one page of `search_pages` per row (and its 36-byte UID)
/// — a random page decrypt for each (BENCHMARKS.md). Triggers on `search_pages` note each changed
/// UID (`SearchTableChanges`), and before the transaction commits `flush` rewrites that UID's
/// runs from what `search_pages` holds then, in the same transaction.
enum PageRuns {
    /// The prefix of the triggers' names (`SearchTableChanges.triggerNames`).
    static let triggerPrefix = "search_page_runs"

    /// The facts of one `search_pages` row.
    struct Row: Equatable {
        var rowid: Int64
        var uid: String
        var pageIndex: Int64
        var kind: Int64
        var ordinal: Int64
        var isOCR: Int64
    }

    /// Creates the table, its index and triggers (emptied if present) and fills it from
    /// `search_pages`, in the caller's transaction (migration 1005).
    static func create(_ db: Connection) throws {
        try SearchTableChanges.dropTriggers(prefix: triggerPrefix, db: db)
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS search_page_runs (
                first INTEGER PRIMARY KEY,
                count INTEGER NOT NULL,
                uid TEXT NOT NULL,
                page_index INTEGER NOT NULL,
                kind INTEGER NOT NULL,
                ordinal INTEGER NOT NULL,
                is_ocr INTEGER NOT NULL
            );
            CREATE INDEX IF NOT EXISTS search_page_runs_uid ON search_page_runs (uid);
            DELETE FROM search_page_runs;
            """
                + SearchTableChanges.triggersSQL(
                    prefix: triggerPrefix, table: "search_pages",
                    function: SearchTableChanges.pageRowFunctionName, column: "uid"))
        try writeRuns(of: nil, db: db)
    }

    /// Rewrites the runs of each of `uids` from what `search_pages` holds now (so a savepoint
    /// rolled back in between changes nothing). Every UID's old runs go first: a row moved from
    /// one UID to another would otherwise start its new run where an old one of the other UID
    /// still starts.
    static func flush(_ uids: [String], db: Connection) throws {
        let sorted = uids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for uid in sorted { try db.execute("DELETE FROM search_page_runs WHERE uid = ?", [.text(uid)]) }
        for uid in sorted { try writeRuns(of: uid, db: db) }
    }

    /// Inserts the runs of `search_pages`' rows of `uid`, or of every row when `uid` is nil (runs
    /// never cross from one UID to another).
    private static func writeRuns(of uid: String?, db: Connection) throws {
        var run: (start: Row, count: Int64)?
        let select = "SELECT rowid, uid, page_index, kind, ordinal, is_ocr FROM search_pages"
        try db.forEachRowView(
            uid == nil ? select + " ORDER BY rowid" : select + " WHERE uid = ? ORDER BY rowid",
            uid.map { [.text($0)] } ?? []
        ) { view in
            let row = Row(
                rowid: view.integer(0), uid: view.withBytes(1) { String(decoding: $0, as: UTF8.self) },
                pageIndex: view.integer(2), kind: view.integer(3), ordinal: view.integer(4), isOCR: view.integer(5))
            if let current = run, extends(current.start, count: current.count, with: row) {
                run?.count += 1
                return
            }
            if let current = run { try insert(current.start, count: current.count, db: db) }
            run = (row, 1)
        }
        if let current = run { try insert(current.start, count: current.count, db: db) }
    }

    /// The rows of `docids` (ascending) that `search_page_runs` covers, in that order: one scan of
    /// the runs from the one holding the first docid to the last docid. A docid no run covers
    /// (no `search_pages` row) is left out, as a lookup in `search_pages` would.
    static func rows(_ docids: [Int64], db: Connection) throws -> [Row] {
        guard let low = docids.first, let high = docids.last else { return [] }
        let start =
            try db.scalar("SELECT max(first) FROM search_page_runs WHERE first <= ?", [.integer(low)])?.integerValue
            ?? low
        var rows: [Row] = []
        rows.reserveCapacity(docids.count)
        var next = 0
        try db.forEachRowView(
            """
            SELECT first, count, uid, page_index, kind, ordinal, is_ocr FROM search_page_runs
            WHERE first BETWEEN ? AND ? ORDER BY first
            """, [.integer(start), .integer(high)]
        ) { view in
            // Wrapping arithmetic: a damaged count or page index must not trap.
            let first = view.integer(0)
            let end = max(first, first &+ view.integer(1))
            while next < docids.count && docids[next] < first { next += 1 }
            guard next < docids.count, docids[next] < end else { return }
            let uid = view.withBytes(2) { String(decoding: $0, as: UTF8.self) }
            let (pageIndex, kind, ordinal, isOCR) = (view.integer(3), view.integer(4), view.integer(5), view.integer(6))
            while next < docids.count && docids[next] < end {
                let docid = docids[next]
                rows.append(
                    Row(
                        rowid: docid, uid: uid, pageIndex: pageIndex &+ (docid &- first), kind: kind, ordinal: ordinal,
                        isOCR: isOCR))
                next += 1
            }
        }
        return rows
    }

    /// Whether `row` is the next row of the run that starts with `start` and has `count` rows.
    private static func extends(_ start: Row, count: Int64, with row: Row) -> Bool {
        row.rowid == start.rowid + count && row.pageIndex == start.pageIndex + count && row.uid == start.uid
            && row.kind == start.kind && row.ordinal == start.ordinal && row.isOCR == start.isOCR
    }

    private static func insert(_ start: Row, count: Int64, db: Connection) throws {
        try db.execute(
            """
            INSERT INTO search_page_runs (first, count, uid, page_index, kind, ordinal, is_ocr)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(start.rowid), .integer(count), .text(start.uid), .integer(start.pageIndex),
                .integer(start.kind), .integer(start.ordinal), .integer(start.isOCR),
            ])
    }
}
