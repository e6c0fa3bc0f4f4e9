extension Connection {
    /// Registers everything full-text search needs on this connection: the `cipherdex` and
    /// `cipherdex_stem` tokenizers, the `cipherdex_bm25` ranking function and the page text
    /// compression functions (`PageTextCompression`) and `cipherdex_set_page_length` (`PageLengths`).
    func registerSearchSupport() throws {
        try SearchTokenizer.register(on: self)
        try BM25Function.register(on: self)
        try PageTextCompression.register(on: self)
        try PageLengthFunction.register(on: self)
    }
}
