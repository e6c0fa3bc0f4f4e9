/// A compiled query whose pieces hold ends-with or inner patterns (`"*ology"`, `"*olog*"`,
/// `"*装*"`, `"*装 java"`: `TermPattern`), spelled out for FTS4, which cannot read them: for
/// the rare query `TopHits` leaves to FTS4 (an index this reader does not read, a phrase of
/// more than `TopHits.maximumPhraseTokens` tokens).
///
/// Each such piece becomes `OR` alternatives: the piece with its pattern replaced by each indexed
/// term the pattern stands for, read from the index's vocabulary (`search_text_terms`, an
/// `fts4aux` table over `search_text`: one `GLOB` scan of it, from `TermPattern.lowestTerm` on);
/// for the inner pattern of a character of a bigram script (`*装*`), the prefix `装*` and the
/// terms that end with it and do not begin with it, which is fewer. FTS4 (SQLite 3.15) refuses
/// an expression tree deeper than 12 (`FTS expression tree is too large`): an `OR` chain of at
/// most 4,095 pieces, 2,047 under an `AND` of two clauses, and so on; and it holds every
/// piece's doclists at once. So each clause keeps to that many pieces, and to at most
/// `maximumPieces`, its patterns sharing what its other pieces leave, the terms in the most
/// documents first: only here can a pattern that stands for more terms than that miss pages.
/// The direct reader (`TopHits.directRows`) reads every term a pattern stands for.
enum PatternExpansion {
    /// The depth of FTS4's expression tree (`SQLITE_FTS3_MAX_EXPR_DEPTH`).
    static let maximumDepth = 12

    /// The most pieces one clause is spelled out into, whatever the depth would allow: FTS4
    /// holds every piece's doclists at once, and the 4,095 pieces of a common pattern (`*a*`
    /// beside a phrase of 17 words) took 1.2 GB and 2.6 s on a 19 MB index and 1.7 GB on a
    /// 55 MB one (hostile-input audit, 2026-12-07); 511 take 173 MB and 0.44 s, and 250 MB.
    static let maximumPieces = 511

    /// What a compiled query is for FTS4.
    enum Expansion: Equatable {
        /// It holds no pattern: FTS4 reads it as it is.
        case unchanged
        /// A clause holds only patterns that stand for no indexed term: it matches nothing.
        case matchesNothing
        /// Its patterns spelled out.
        case expanded(CompiledSearchQuery)
    }

    /// `compiled` for FTS4.
    static func expanded(_ compiled: CompiledSearchQuery, db: Connection) throws -> Expansion {
        guard let clauses = TopHits.clausePieces(compiled.match) else { return .unchanged }
        let exclusions = compiled.exclusion.map { TopHits.clausePieces($0) ?? [] } ?? []
        guard (clauses + exclusions).joined().contains(where: \.isPattern) else { return .unchanged }
        // The clauses' `AND` takes this many levels of the tree; each clause's `OR` chain the rest.
        var depth = 0
        while 1 << depth < clauses.count { depth += 1 }
        var written: [String] = []
        for clause in clauses {
            let pieces = try spelledOut(
                clause, budget: min((1 << max(maximumDepth - depth, 1)) - 1, maximumPieces), db: db)
            guard !pieces.isEmpty else { return .matchesNothing }
            written.append(pieces.joined(separator: " OR "))
        }
        // `SearchQuery.compiled` joins the exclusions by `OR`: one clause, a MATCH of its own.
        let excluded = try spelledOut(
            Array(exclusions.joined()), budget: min((1 << maximumDepth) - 1, maximumPieces), db: db)
        return .expanded(
            CompiledSearchQuery(
                match: written.joined(separator: " "),
                exclusion: excluded.isEmpty ? nil : excluded.joined(separator: " OR ")))
    }

    /// One clause's pieces, quoted, with each pattern replaced by its terms, in all at most
    /// `budget` (its other pieces kept whole).
    private static func spelledOut(_ clause: [Substring], budget: Int, db: Connection) throws -> [String] {
        let patterns = clause.filter(\.isPattern).count
        let share = max((budget - (clause.count - patterns)) / max(patterns, 1), 1)
        var pieces: [String] = []
        for piece in clause {
            guard piece.isPattern else {
                pieces.append("\"" + piece + "\"")
                continue
            }
            pieces += try alternatives(of: piece, limit: share, db: db).map { "\"" + $0 + "\"" }
        }
        return pieces
    }

    /// The pieces a pattern piece (`*x rest`, `*x* rest`) stands for: `rest` after each term of at
    /// most `limit`, the terms in the most documents first.
    static func alternatives(of piece: Substring, limit: Int, db: Connection) throws -> [String] {
        let tokens = SearchTokenizer.tokens(in: String(piece))
        guard let first = tokens.first else { return [] }
        let utf8 = Array(piece.utf8)
        let end = first.byteRange.upperBound
        let infix = end < utf8.count && utf8[end] == UInt8(ascii: "*")
        let rest = String(decoding: utf8[(infix ? end + 1 : end)...], as: UTF8.self)
        let pattern = TermPattern(bytes: Array(first.text.utf8), kind: infix ? .infix : .suffix)
        var written: [String] = []
        var glob = "*" + first.text + (infix ? "*" : "")
        let asPrefix = infix && !pattern.lowestTerm.isEmpty
        if asPrefix {
            // A character of a bigram script: the terms it begins (itself among them) as a
            // prefix, then those it only ends.
            written.append(first.text + "*" + rest)
            glob = "*" + first.text
        }
        // Indexed terms are folded like the token, whose letters, digits and marks are no
        // `GLOB` metacharacter.
        let rows = try db.rows(
            """
            SELECT term FROM search_text_terms WHERE col = '*' AND term >= ? AND term GLOB ?
            ORDER BY documents DESC, term LIMIT ?
            """,
            [
                .text(String(decoding: pattern.lowestTerm, as: UTF8.self)), .text(glob),
                .integer(Int64(limit + 1)),
            ])
        for term in rows.compactMap({ $0.first?.textValue }) where written.count < limit {
            if asPrefix && term.utf8.starts(with: first.text.utf8) { continue }
            written.append(term + rest)
        }
        return written
    }
}

extension Substring {
    /// Whether this compiled piece's first token is a pattern (a `*` before it).
    fileprivate var isPattern: Bool { first == "*" }
}
