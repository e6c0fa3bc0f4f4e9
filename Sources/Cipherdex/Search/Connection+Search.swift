extension Connection {
    /// Registers everything full-text search needs on this connection: the `cipherdex` and
    /// `cipherdex_stem` tokenizers and the `cipherdex_bm25` ranking function.
    func registerSearchSupport() throws {
        try SearchTokenizer.register(on: self)
        try BM25Function.register(on: self)
    }
}
