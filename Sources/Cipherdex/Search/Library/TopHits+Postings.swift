/// TopHits' first stage for a query read straight from the index (issue 12): the matching rows and
/// what their `matchinfo(…, 'pcnalx')` values hold, from `FTS4Postings`: the values FTS4 gives row
/// by row.
extension TopHits {
    /// The rows `compiled` matches, ascending, each row's hits of each phrase and the values every
    /// row shares (`DirectRows`: `p` phrases, one column, `l` left to `DocumentLengths`), for the
    /// queries `SearchQuery.compiled` writes — clauses that must all match, each one term or
    /// several joined by `OR`, a term a word, a prefix, an ends-with or inner pattern
    /// (`TermPattern`) or a phrase of them, with or without exclusions — on a reader's
    /// connection; nil otherwise (FTS4 answers, as it does for anything this reader does not
    /// read; `select` spells the patterns out for it).
    ///
    /// Why the values are FTS4's:
    /// - a reader (`query_only`) never holds FTS4's pending terms, which live only in the writing
    ///   connection until its transaction commits;
    /// - `n` and `a` are FTS4's from `search_text_stat` (`a` rounded as FTS4 rounds it);
    /// - 'x' gives, per term, the row's hits (for a phrase, the positions where it starts), then
    ///   the hits and the rows of its whole doclist (exclusions do not change them: in FTS4 they
    ///   are another statement).
    ///
    /// One difference, by design: FTS4 may defer a very common token (test each row's text for it
    /// rather than read its doclist). A deferred term of an AND is then reported in every row
    /// (`x` = N, N); a phrase with a deferred token is counted without it. Here every term's real
    /// hits and rows are counted, as BM25's definition (`BM25`) says
    /// (`FTS4PostingsTests.testADeferredTokenIsCountedByItsRealRows`).
    static func directRows(_ compiled: CompiledSearchQuery, db: Connection) throws -> DirectRows? {
        guard let clauses = clausePieces(compiled.match), clauses.joined().count <= 64,
            try db.scalar("PRAGMA query_only")?.integerValue == 1
        else { return nil }
        let stemming = try SearchSchema.tokenizer(db) == .englishStemming
        guard let stats = try db.scalar("SELECT value FROM search_text_stat WHERE id = 0")?.blobValue,
            let (documents, tokens) = documentTotals(stats)
        else { return nil }
        let average = UInt32(
            truncatingIfNeeded: (Int64(UInt32(truncatingIfNeeded: tokens)) + documents / 2) / documents)
        var shared: [UInt32] = [0, 1, UInt32(truncatingIfNeeded: documents), average, 0]
        // The first piece is read once, here. A word or prefix alone, read into slots that hold
        // every row: its rows stay there, scored slot by slot (`TopHits.select`), never gathered.
        // A term alone in slots is scored with every slot's page length: read while its last
        // doclists are decoded.
        let alone = clauses.count == 1 && clauses[0].count == 1 && compiled.exclusion == nil
        var lengths: [UInt32]?
        guard
            let first = try termRows(
                clauses[0][0], stemming: stemming, db: db,
                whileDecoding: { low, span in
                    guard alone else { return }
                    lengths = try DocumentLengths.slotLengths(low: low, span: span, db: db)
                })
        else { return nil }
        if alone, case .slotted(let slots, let rest) = first, rest.docids.isEmpty {
            let (rows, hits) = slots.totals()
            shared[0] = 1
            shared += [0, UInt32(truncatingIfNeeded: hits), UInt32(truncatingIfNeeded: rows)]
            return DirectRows(
                docids: [], hits: [], shared: shared, slots: slots, slottedRows: rows,
                slotLengths: lengths?.count == slots.span ? lengths : nil)
        }
        // Every piece's rows as read (phrases in the order they appear, matchinfo's order); when
        // all of them are in slots of one range, they are combined there (`slotCombined`).
        var firstRows: FTS4Postings.TermRows? = first
        var pieceRows: [[FTS4Postings.TermRows]] = []
        for clause in clauses {
            var rows: [FTS4Postings.TermRows] = []
            for piece in clause {
                let read = try firstRows ?? termRows(piece, stemming: stemming, db: db)
                firstRows = nil
                guard let read else { return nil }
                rows.append(read)
            }
            pieceRows.append(rows)
        }
        var excludedRows: [FTS4Postings.TermRows] = []
        if let exclusion = compiled.exclusion {
            guard let excluded = try excludedTermRows(exclusion, stemming: stemming, db: db) else { return nil }
            excludedRows = excluded
        }
        return slotCombined(pieceRows, excluded: excludedRows, shared: shared)
            ?? listCombined(pieceRows, excluded: excludedRows, shared: shared)
    }

    /// `clauses`' rows (each clause's pieces, in matchinfo's order) less `excluded`'s, merged as
    /// lists: a row is in every clause (a piece in slots is gathered first). `shared` is p, c, n,
    /// a, l: each piece's 0, hits and rows are appended.
    static func listCombined(
        _ clauses: [[FTS4Postings.TermRows]], excluded: [FTS4Postings.TermRows], shared: [UInt32]
    ) -> DirectRows? {
        var shared = shared
        var alternatives: [FTS4Postings.Matches] = []
        var docids: [Int64]?
        for clause in clauses {
            let matches = clause.map(\.matches)
            alternatives += matches
            let rows = union(matches.map(\.docids))
            docids = docids.map { intersection($0, rows) } ?? rows
        }
        guard var docids else { return nil }
        if !excluded.isEmpty {
            docids = subtracting(union(excluded.map(\.matches.docids)), from: docids)
        }
        shared[0] = UInt32(alternatives.count)
        for matches in alternatives {
            shared += [
                0, UInt32(truncatingIfNeeded: matches.totalHits), UInt32(truncatingIfNeeded: matches.docids.count),
            ]
        }
        let phrases = alternatives.count
        // One phrase, every row of it kept (its rows are `docids`, which only lose rows): its hits
        // are the rows' hits as they are, not copied (4 MB for `the` at 1,000,000 pages).
        if phrases == 1, alternatives[0].docids.count == docids.count {
            return DirectRows(docids: docids, hits: alternatives[0].hits, shared: shared)
        }
        let hits = [UInt32](unsafeUninitializedCapacity: docids.count * phrases) { buffer, initialized in
            buffer.initialize(repeating: 0)
            // Each alternative's hits in each row: its docids are a subsequence of `docids`.
            for (phrase, matches) in alternatives.enumerated() {
                var position = 0
                for (docid, count) in zip(matches.docids, matches.hits) {
                    while position < docids.count && docids[position] < docid { position += 1 }
                    guard position < docids.count else { break }
                    if docids[position] == docid { buffer[position * phrases + phrase] = count }
                }
            }
            initialized = docids.count * phrases
        }
        return DirectRows(docids: docids, hits: hits, shared: shared)
    }

    /// The rows of a query read straight from the index and what their 'pcnalx' values hold:
    /// each row's hits of each phrase, and the values every row shares. `matchInfo` writes one
    /// row's values, so only the rows described are written out whole.
    struct DirectRows {
        /// The rows, ascending.
        var docids: [Int64]
        /// Each row's hits of each phrase (matchinfo's 'x', first value), row after row.
        var hits: [UInt32]
        /// p, c (1), n, a, l (0), then per phrase 0, its hits in every row, its rows.
        var shared: [UInt32]
        /// One term's rows still in its slots (then `docids` and `hits` are empty): row `i` is
        /// slot `i`, docid `slots.low + i`, and a slot of 0 hits is no row.
        var slots: DenseTermHits? = nil
        /// The rows in `slots`.
        var slottedRows = 0
        /// The page length of each slot, when read already (`DocumentLengths.slotLengths`).
        var slotLengths: [UInt32]? = nil

        /// The number of phrases.
        var phrases: Int { Int(shared[0]) }
        /// `n`: the table's rows.
        var tableRows: UInt32 { shared[2] }
        /// `a`: the average row length.
        var averageLength: UInt32 { shared[3] }
        /// Each phrase's rows (its 'x' third value), for its idf.
        var phraseRows: [UInt32] { (0..<phrases).map { shared[7 + 3 * $0] } }

        /// Row `index`'s 'pcnalx' values, with `length` as its `l`.
        func matchInfo(_ index: Int, length: UInt32) -> [UInt32] {
            var row = shared
            row[4] = length
            for phrase in 0..<phrases { row[5 + 3 * phrase] = hits[index * phrases + phrase] }
            return row
        }
    }

    /// The rows of each piece of the exclusions (`SearchQuery.compiled` joins them by `OR`: one
    /// clause), as read; nil when it is not such a clause or the index cannot be read directly.
    private static func excludedTermRows(_ exclusion: String, stemming: Bool, db: Connection) throws
        -> [FTS4Postings.TermRows]?
    {
        guard let clauses = clausePieces(exclusion), clauses.count == 1 else { return nil }
        var pieces: [FTS4Postings.TermRows] = []
        for piece in clauses[0] {
            guard let rows = try termRows(piece, stemming: stemming, db: db) else { return nil }
            pieces.append(rows)
        }
        return pieces
    }

    /// The union of ascending lists, ascending.
    static func union(_ lists: [[Int64]]) -> [Int64] {
        var lists = lists.filter { !$0.isEmpty }
        while lists.count > 1 {
            var next: [[Int64]] = []
            for start in Swift.stride(from: 0, to: lists.count, by: 2) {
                guard start + 1 < lists.count else {
                    next.append(lists[start])
                    continue
                }
                let a = lists[start]
                let b = lists[start + 1]
                var out: [Int64] = []
                out.reserveCapacity(a.count + b.count)
                var i = 0
                var j = 0
                while i < a.count && j < b.count {
                    if a[i] < b[j] {
                        out.append(a[i])
                        i += 1
                    } else if b[j] < a[i] {
                        out.append(b[j])
                        j += 1
                    } else {
                        out.append(a[i])
                        i += 1
                        j += 1
                    }
                }
                out += a[i...]
                out += b[j...]
                next.append(out)
            }
            lists = next
        }
        return lists.first ?? []
    }

    /// The rows in both ascending lists, ascending.
    static func intersection(_ a: [Int64], _ b: [Int64]) -> [Int64] {
        var out: [Int64] = []
        var j = 0
        for docid in a {
            while j < b.count && b[j] < docid { j += 1 }
            if j < b.count && b[j] == docid { out.append(docid) }
        }
        return out
    }

    /// `match` as clauses (joined by spaces: all must match) of quoted strings (joined by ` OR `),
    /// as `SearchQuery.compiled` writes it; nil for anything else.
    static func clausePieces(_ match: String) -> [[Substring]]? {
        var clauses: [[Substring]] = []
        var rest = Substring(match)
        var sameClause = false
        while !rest.isEmpty {
            guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { return nil }
            let piece = rest[rest.index(after: rest.startIndex)..<close]
            if sameClause, !clauses.isEmpty {
                clauses[clauses.count - 1].append(piece)
            } else {
                clauses.append([piece])
            }
            rest = rest[rest.index(after: close)...]
            if rest.hasPrefix(" OR \"") {
                rest = rest.dropFirst(4)
                sameClause = true
            } else if rest.hasPrefix(" \"") {
                rest = rest.dropFirst(1)
                sameClause = false
            } else if !rest.isEmpty {
                return nil
            }
        }
        return clauses.isEmpty ? nil : clauses
    }

    /// `rows` (ascending) without `excluded` (ascending).
    static func subtracting(_ excluded: [Int64], from rows: [Int64]) -> [Int64] {
        var kept: [Int64] = []
        kept.reserveCapacity(rows.count)
        var next = 0
        for docid in rows {
            while next < excluded.count && excluded[next] < docid { next += 1 }
            if next < excluded.count && excluded[next] == docid { continue }
            kept.append(docid)
        }
        return kept
    }

    /// The longest phrase read directly: each token keeps a window of its own (768 KiB, and its
    /// entries), so a longer one (a pasted CJK sentence is a phrase of bigrams) is left to FTS4.
    static let maximumPhraseTokens = 16

    /// The rows of one quoted piece: a word or prefix (left in slots when they were read into
    /// them), or a phrase of them; nil when the piece has no token, has more than
    /// `maximumPhraseTokens`, or the index cannot be read directly. `whileDecoding` as
    /// `FTS4Postings.rows` calls it, for a word or prefix.
    static func termRows(
        _ piece: Substring, stemming: Bool, db: Connection,
        whileDecoding: (_ low: Int64, _ span: Int) throws -> Void = { _, _ in }
    ) throws -> FTS4Postings.TermRows? {
        let tokens = indexTokens(piece, stemming: stemming)
        guard !tokens.isEmpty, tokens.count <= maximumPhraseTokens else { return nil }
        if tokens.count == 1 {
            return try FTS4Postings.rows(of: tokens[0], db: db, whileDecoding: whileDecoding)
        }
        return try FTS4Postings.phraseMatches(tokens, db: db).map { .listed($0) }
    }

    /// The tokens FTS4 looks up for a quoted piece: the tokenizer's tokens of it (folded UTF-8),
    /// each a prefix when a `*` follows it, as FTS4's query parser reads a quoted string; and, as
    /// only this reader reads it (`TermPattern`), a token that a `*` precedes stands for the
    /// terms it ends, or with a `*` after it too for the terms that hold it.
    static func indexTokens(_ piece: Substring, stemming: Bool) -> [FTS4Postings.PhraseToken] {
        let text = String(piece)
        let utf8 = Array(text.utf8)
        return SearchTokenizer.tokens(in: text, stemming: stemming).map { token in
            let end = token.byteRange.upperBound
            let start = token.byteRange.lowerBound
            let before = start > 0 && utf8[start - 1] == UInt8(ascii: "*")
            let after = end < utf8.count && utf8[end] == UInt8(ascii: "*")
            let kind: TermPattern.Kind = before ? (after ? .infix : .suffix) : (after ? .prefix : .term)
            return TermPattern(bytes: Array(token.text.utf8), kind: kind)
        }
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
