extension SearchQuery {
    /// Compiles the query for a table whose tokenizer is `cipherdex` (`stemming: false`) or
    /// `cipherdex_stem` (`stemming: true`).
    ///
    /// The expressions are built only from tokens `SearchTokenizer` finds in the query: every term
    /// becomes a double-quoted string of the tokens' source text (which never contains `"`, `*`,
    /// `:`, `^`, parentheses or spaces), each token optionally followed inside the quotes by `*`;
    /// terms are joined by spaces (AND) and `OR`. So no character the user typed can act as FTS
    /// syntax: `NEAR`, `AND`, `col:`, `^` and quotes are inert. FTS re-tokenises each quoted string
    /// with the same tokenizer, which gives back exactly these tokens.
    ///
    /// A term with several tokens (a phrase, a hyphenated word, a CJK word's bigrams, `3.14`) is
    /// a phrase. Words are prefixes unless `.exactWords` (a trailing `*` always is); phrase words
    /// are prefixes unless `.exactPhrases`. CJK bigrams are never prefixes; a single CJK
    /// character is one when it ends the term, so it also finds the bigrams it starts, and exact
    /// when other text follows it (`装Java`). Terms without tokens are
    /// dropped. Throws `SearchQueryError.noSearchableTerms` when no positive term is left.
    public func compiled(stemming: Bool = false) throws -> CompiledSearchQuery {
        var parts: [String] = []
        for clause in clauses {
            let alternatives = clause.alternatives.compactMap { compile($0, stemming: stemming) }
            if !alternatives.isEmpty { parts.append(alternatives.joined(separator: " OR ")) }
        }
        guard !parts.isEmpty else { throw SearchQueryError.noSearchableTerms }
        let excluded = exclusions.compactMap { compile($0, stemming: stemming) }
        return CompiledSearchQuery(match: parts.joined(separator: " "),
                                   exclusion: excluded.isEmpty ? nil : excluded.joined(separator: " OR "))
    }

    /// The quoted string for one term, or nil when it has no tokens.
    func compile(_ term: Term, stemming: Bool) -> String? {
        let tokens = SearchTokenizer.tokens(in: term.text, stemming: stemming)
        guard !tokens.isEmpty else { return nil }
        let utf8 = Array(term.text.utf8)
        let prefixWords: Bool
        switch term.kind {
        case .word, .hyphenated: prefixWords = !options.contains(.exactWords)
        case .phrase: prefixWords = !options.contains(.exactPhrases)
        case .exactWord: prefixWords = false
        }
        var phrase = ""
        for (index, token) in tokens.enumerated() {
            var piece = String(decoding: utf8[token.byteRange], as: UTF8.self)
            let isLast = index == tokens.count - 1
            let prefix: Bool
            switch token.kind {
            case .word: prefix = prefixWords || (isLast && term.explicitPrefix)
            // A run of one character is a prefix (it also starts the pairs of a longer run)
            // unless other text follows it in the term: then it must end its run there, so it
            // is matched exactly (a run of one; `RunEndExpansion` adds the pairs ending with it).
            case .cjkUnigram: prefix = isLast
            case .cjkBigram: prefix = false
            }
            if prefix { piece += "*" }
            if index > 0 {
                // FTS cuts the phrase again with the same tokenizer: between two bigram-script
                // pieces a comma (not white space, across which their run would continue)
                // keeps each piece one token.
                phrase += token.kind != .word && tokens[index - 1].kind != .word ? " , " : " "
            }
            phrase += piece
        }
        return "\"" + phrase + "\""
    }
}
