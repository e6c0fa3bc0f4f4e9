/// A one-character query of a script cut into bigrams (`装`, `か`, `다`) also finds the pages
/// where that character only ends a run: a run of two or more characters is indexed as its
/// overlapping pairs (`请安装` → `请安`, `安装`), so its last character starts no token, and the
/// character compiled as a prefix (`装*`) finds only the pairs it starts and runs of one.
///
/// Before compilation, a term whose first token is such a character (a run of one in the query)
/// gets, as `OR` alternatives, the same term with that character replaced by each indexed pair
/// that ends with it (`安装`), read from the index's vocabulary (`search_text_terms`, as
/// `WordEndExpansion` reads it; at most `maximumExpansions` pairs, those in the most documents
/// first). The character alone stays an alternative: as a prefix when nothing follows it in the
/// term (it may start a run), as an exact unigram when other text follows (`装Java`: the
/// character must end its run there, so it is a run of one or the end of a pair). A character
/// that other text precedes in the term must start a run, which the prefix already finds.
/// Nothing is indexed differently, so existing indexes need no re-cut.
enum RunEndExpansion {
    /// The most pairs one character expands to (the most frequent first).
    static let maximumExpansions = 256

    /// `query` with every term that begins with a one-character bigram-script run given the
    /// alternatives above (for an exclusion, one exclusion each).
    static func expand(_ query: SearchQuery, db: Connection) throws -> SearchQuery {
        var pairsByCharacter: [String: [String]] = [:]
        func alternatives(_ term: SearchQuery.Term) throws -> [SearchQuery.Term] {
            let tokens = SearchTokenizer.tokens(in: term.text)
            guard let first = tokens.first, first.kind == .cjkUnigram else { return [term] }
            let pairs: [String]
            if let known = pairsByCharacter[first.text] {
                pairs = known
            } else {
                pairs = try self.pairs(endingWith: first.text, db: db)
                pairsByCharacter[first.text] = pairs
            }
            let rest = String(decoding: Array(term.text.utf8)[first.byteRange.upperBound...], as: UTF8.self)
            return [term]
                + pairs.map { pair in
                    var alternative = term
                    alternative.text = pair + rest
                    return alternative
                }
        }
        var expanded = query
        for index in expanded.clauses.indices {
            expanded.clauses[index].alternatives = try expanded.clauses[index].alternatives.flatMap(alternatives)
        }
        expanded.exclusions = try expanded.exclusions.flatMap(alternatives)
        return expanded
    }

    /// The indexed pairs that end with `character` (a folded character of a bigram script).
    ///
    /// Every such character is U+0E01 or above, and a word of another script never holds one,
    /// so only the vocabulary from U+0E00 on is read (`term >=` is a range `fts4aux` seeks to):
    /// on an index of Latin text the scan is nearly free; on one of CJK text it reads the CJK
    /// part of the vocabulary.
    static func pairs(endingWith character: String, db: Connection) throws -> [String] {
        // The character is folded tokenizer output of a bigram script: no GLOB metacharacter.
        let rows = try db.rows(
            """
            SELECT term FROM search_text_terms WHERE col = '*' AND term >= ? AND term GLOB ? AND term != ?
            ORDER BY documents DESC, term LIMIT \(maximumExpansions)
            """, [.text("\u{0E00}"), .text("*" + character), .text(character)])
        return rows.compactMap { $0.first?.textValue }.filter { term in
            let tokens = SearchTokenizer.tokens(in: term)
            return tokens.count == 1 && tokens[0].kind == .cjkBigram
        }
    }
}
