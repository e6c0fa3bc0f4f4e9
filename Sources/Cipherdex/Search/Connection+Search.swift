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
}
