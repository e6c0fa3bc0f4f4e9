/// Ends-with and inner matches (`*ology`, `*olog*`: PDFLibrary offers ends-with): a term with a
/// leading `*` is replaced, before compilation, by the indexed words it matches, taken from the
/// index's vocabulary (`search_text_terms`, an `fts4aux` table over `search_text`) — so the
/// index needs no reversed copy of the text (no extra bytes), and the query pays one scan of the
/// vocabulary per such term. The matches are then exact words like any other, with previews and
/// match ranges.
enum WordEndExpansion {
    /// The most words one term expands to (the most frequent first).
    static let maximumExpansions = 256

    /// `query` with every word-end term replaced by the words it matches (`OR` alternatives in
    /// its clause; for an excluded term, one exclusion each). A clause left with nothing to
    /// match makes the query match nothing: nil.
    static func expand(_ query: SearchQuery, db: Connection) throws -> SearchQuery? {
        guard
            query.clauses.contains(where: { $0.alternatives.contains(where: \.matchesWordEnds) })
                || query.exclusions.contains(where: \.matchesWordEnds)
        else { return query }
        var expanded = query
        for index in expanded.clauses.indices {
            var alternatives: [SearchQuery.Term] = []
            for term in expanded.clauses[index].alternatives {
                alternatives += term.matchesWordEnds ? try words(matching: term, db: db) : [term]
            }
            guard !alternatives.isEmpty else { return nil }
            expanded.clauses[index].alternatives = alternatives
        }
        expanded.exclusions = try expanded.exclusions.flatMap { term in
            term.matchesWordEnds ? try words(matching: term, db: db) : [term]
        }
        return expanded
    }

    /// The indexed words `term` (one word, checked by the parser) matches, as exact words.
    private static func words(matching term: SearchQuery.Term, db: Connection) throws -> [SearchQuery.Term] {
        guard let token = SearchTokenizer.tokens(in: term.text).first else { return [] }
        // Indexed terms are folded like the token, and a token holds only letters, digits and
        // marks, so no GLOB metacharacter can come from the user.
        let pattern = "*" + token.text + (term.explicitPrefix ? "*" : "")
        let rows = try db.rows(
            """
            SELECT term FROM search_text_terms WHERE col = '*' AND term GLOB ?
            ORDER BY documents DESC, term LIMIT \(maximumExpansions)
            """, [.text(pattern)])
        return rows.compactMap { $0.first?.textValue }.map {
            SearchQuery.Term(kind: .exactWord, text: $0, position: term.position)
        }
    }
}
