/// TopHits' first stage for a query of one token (issue 12): the matching rows and their
/// `matchinfo(…, 'pcnalx')` values from `FTS4Postings`, the same values FTS4 gives row by row.
extension TopHits {
    /// The rows `compiled` matches, ascending, and their 'pcnalx' values (one phrase, one column:
    /// 8 words a row, `l` left 0 for `DocumentLengths`), when the query is one word or prefix
    /// with or without exclusions and the connection is a reader's; nil otherwise (FTS4 answers).
    ///
    /// A reader (`query_only`) never holds FTS4's pending terms, which live only in the writing
    /// connection until its transaction commits. `n` and `a` are FTS4's from `search_text_stat`
    /// (`a` rounded as FTS4 rounds it); 'x' gives the row's hits, then the hits and the rows of the
    /// whole doclist (exclusions do not change them, as in FTS4, where they are another statement).
    static func directRows(_ compiled: CompiledSearchQuery, db: Connection) throws
        -> (docids: [Int64], infos: [UInt32])?
    {
        guard let piece = quotedPieces(compiled.match), piece.count == 1,
            try db.scalar("PRAGMA query_only")?.integerValue == 1
        else { return nil }
        let stemming = try SearchSchema.tokenizer(db) == .englishStemming
        guard let term = indexTerm(piece[0], stemming: stemming),
            let stats = try db.scalar("SELECT value FROM search_text_stat WHERE id = 0")?.blobValue,
            let (documents, tokens) = documentTotals(stats),
            let matches = try FTS4Postings.matches(of: term.bytes, prefix: term.prefix, db: db)
        else { return nil }
        var docids = matches.docids
        var hits = matches.hits
        if let exclusion = compiled.exclusion {
            guard let excluded = try excludedRows(exclusion, stemming: stemming, db: db) else { return nil }
            var kept = 0
            var next = 0
            for index in docids.indices {
                while next < excluded.count && excluded[next] < docids[index] { next += 1 }
                if next < excluded.count && excluded[next] == docids[index] { continue }
                docids[kept] = docids[index]
                hits[kept] = hits[index]
                kept += 1
            }
            docids.removeSubrange(kept...)
            hits.removeSubrange(kept...)
        }
        let average = UInt32(
            truncatingIfNeeded: (Int64(UInt32(truncatingIfNeeded: tokens)) + documents / 2) / documents)
        let total = UInt32(truncatingIfNeeded: matches.totalHits)
        let rows = UInt32(truncatingIfNeeded: matches.docids.count)
        let row: [UInt32] = [1, 1, UInt32(truncatingIfNeeded: documents), average, 0, 0, total, rows]
        let infos = [UInt32](unsafeUninitializedCapacity: hits.count * 8) { buffer, initialized in
            for (index, count) in hits.enumerated() {
                for word in 0..<8 { buffer[index * 8 + word] = word == 5 ? count : row[word] }
            }
            initialized = hits.count * 8
        }
        return (docids, infos)
    }

    /// The rows any exclusion matches, ascending: each one-token exclusion read directly, the
    /// others asked of FTS4; nil when the index cannot be read directly.
    private static func excludedRows(_ exclusion: String, stemming: Bool, db: Connection) throws -> [Int64]? {
        var rows = Set<Int64>()
        guard let pieces = alternativePieces(exclusion) else {
            try db.forEachRowView("SELECT docid FROM search_text WHERE search_text MATCH ?", [.text(exclusion)]) {
                rows.insert($0.integer(0))
            }
            return rows.sorted()
        }
        for piece in pieces {
            if let term = indexTerm(piece, stemming: stemming) {
                guard let matches = try FTS4Postings.matches(of: term.bytes, prefix: term.prefix, db: db) else {
                    return nil
                }
                rows.formUnion(matches.docids)
            } else {
                try db.forEachRowView(
                    "SELECT docid FROM search_text WHERE search_text MATCH ?", [.text("\"" + piece + "\"")]
                ) { rows.insert($0.integer(0)) }
            }
        }
        return rows.sorted()
    }

    /// The contents of `match` when it is quoted strings joined by ` OR ` (what
    /// `SearchQuery.compiled` writes for one clause), else nil.
    static func alternativePieces(_ match: String) -> [Substring]? {
        guard match.hasPrefix("\""), match.hasSuffix("\""), match.count >= 2 else { return nil }
        let pieces = match.dropFirst().dropLast().split(separator: "\" OR \"", omittingEmptySubsequences: false)
        return pieces.allSatisfy { !$0.contains("\"") } ? pieces : nil
    }

    /// `alternativePieces` when the whole match is one quoted string.
    private static func quotedPieces(_ match: String) -> [Substring]? {
        guard let pieces = alternativePieces(match), pieces.count == 1 else { return nil }
        return pieces
    }

    /// The index term of a quoted piece that is one token (`word` or `word*`): the folded UTF-8
    /// FTS4 looks up; nil for a phrase or anything else.
    static func indexTerm(_ piece: Substring, stemming: Bool) -> (bytes: [UInt8], prefix: Bool)? {
        let prefix = piece.hasSuffix("*")
        let text = prefix ? piece.dropLast() : piece
        guard !text.isEmpty, !text.contains(where: { $0 == " " || $0 == "*" }) else { return nil }
        let tokens = SearchTokenizer.tokens(in: String(text), stemming: stemming)
        guard tokens.count == 1, tokens[0].byteRange == 0..<text.utf8.count else { return nil }
        return (Array(tokens[0].text.utf8), prefix)
    }

    /// FTS4's `%_stat` row 0: the row count, then the first column's tokens.
    private static func documentTotals(_ value: [UInt8]) -> (documents: Int64, tokens: Int64)? {
        value.withUnsafeBytes { raw in
            var reader = VarintReader(raw)
            guard let documents = reader.next(), let tokens = reader.next(), documents > 0, documents < 1 << 62 else {
                return nil
            }
            return (Int64(documents), Int64(bitPattern: tokens))
        }
    }
}
