extension Connection {
    /// Registers everything full-text search needs on this connection: the `cipherdex` and
    /// `cipherdex_stem` tokenizers, the `cipherdex_bm25` ranking function and the page text
    /// compression functions (`PageTextCompression`) and what keeps `search_page_lengths` and
    /// `search_page_runs` in step (`SearchTableChanges`).
    func registerSearchSupport() throws {
        try SearchTokenizer.register(on: self)
        try BM25Function.register(on: self)
        try PageTextCompression.register(on: self)
        try SearchTableChanges.register(on: self)
    }

    /// Runs `sql` once for each batch of 500 of `keys` (SQLite 3.15 binds at most 999 values),
    /// the batch bound to its `IN (…)` list: `sql` is given the list's placeholders (`?,?,…`).
    /// Each row is read in place. `stop` is asked before each batch: once it is true, no more
    /// batches run.
    func forEachRowView(
        inBatchesOf keys: [Int64], _ sql: (_ placeholders: String) -> String, stop: () -> Bool = { false },
        _ body: (RowView) throws -> Void
    ) throws {
        for start in Swift.stride(from: 0, to: keys.count, by: 500) {
            if stop() { return }
            let slice = keys[start..<min(start + 500, keys.count)]
            let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ",")
            try forEachRowView(sql(placeholders), slice.map { .integer($0) }, body)
        }
    }
}
