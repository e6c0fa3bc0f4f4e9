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
    /// a phrase. A hyphenated word also stands for itself with each of its hyphens taken out in
    /// turn (`log-likelihood` OR `loglikelihood`; at most `maximumJoinedHyphens` of them): a word
    /// hyphenated at a line end is indexed as one word (`log-⏎likelihood`, tokenizer revision 6). Words are prefixes unless `.exactWords` (a trailing `*` always is); phrase words
    /// are prefixes unless `.exactPhrases`. CJK bigrams are never prefixes; a single CJK
    /// character is one when it ends the term, so it also finds the bigrams it starts, and exact
    /// when other text follows it (`装Java`). Terms without tokens are
    /// dropped. Throws `SearchQueryError.noSearchableTerms` when no positive term is left.
    public func compiled(stemming: Bool = false) throws -> CompiledSearchQuery {
        try compiled(stemming: stemming, readingPatterns: false)
    }

    /// `compiled(stemming:)`, and with `readingPatterns` for `TopHits`, which reads what FTS4
    /// cannot (`TermPattern`): a `*` before a token stands for the terms it ends, with a `*`
    /// after it too for those that hold it. A word-end term is then `"*ology"` (or `"*olog*"`),
    /// and a term whose first token is a one-character run of a bigram script `"*装*"` when
    /// that is all of it (every token holding the character: alone, starting a pair or ending
    /// one) and `"*装 java*"` before other text (the character must end its run there: alone,
    /// or ending a pair). Without, a word-end term compiles as a plain word and such a character
    /// as a prefix (`"装*"`) or an exact unigram before other text, as FTS4 reads them.
    func compiled(stemming: Bool, readingPatterns: Bool) throws -> CompiledSearchQuery {
        var parts: [String] = []
        for clause in clauses {
            let alternatives = clause.alternatives.flatMap {
                compiledAlternatives($0, stemming: stemming, readingPatterns: readingPatterns)
            }
            if !alternatives.isEmpty { parts.append(alternatives.joined(separator: " OR ")) }
        }
        guard !parts.isEmpty else { throw SearchQueryError.noSearchableTerms }
        let excluded = exclusions.flatMap {
            compiledAlternatives($0, stemming: stemming, readingPatterns: readingPatterns)
        }
        return CompiledSearchQuery(
            match: parts.joined(separator: " "),
            exclusion: excluded.isEmpty ? nil : excluded.joined(separator: " OR "))
    }

    /// The most hyphens of one word that are each taken out in an alternative of their own.
    static let maximumJoinedHyphens = 8

    /// The quoted strings one term stands for, OR'd: the term, and for a hyphenated word the word
    /// with each hyphen between two letters or digits taken out in turn (a word hyphenated at a
    /// line end there is one token: `log-⏎likelihood` is `loglikelihood`). Empty when the term
    /// has no tokens.
    func compiledAlternatives(_ term: Term, stemming: Bool, readingPatterns: Bool) -> [String] {
        guard let whole = compile(term, stemming: stemming, readingPatterns: readingPatterns) else { return [] }
        guard term.kind == .hyphenated, !term.matchesWordEnds else { return [whole] }
        var alternatives = [whole]
        let characters = Array(term.text)
        let hyphens = characters.indices.filter { index in
            index > 0 && index < characters.count - 1 && characters[index] == "-"
                && (characters[index - 1].isLetter || characters[index - 1].isNumber)
                && (characters[index + 1].isLetter || characters[index + 1].isNumber)
        }
        for hyphen in hyphens.prefix(Self.maximumJoinedHyphens) {
            var joined = term
            joined.text = String(characters[..<hyphen] + characters[(hyphen + 1)...])
            if let compiled = compile(joined, stemming: stemming, readingPatterns: readingPatterns),
                !alternatives.contains(compiled)
            {
                alternatives.append(compiled)
            }
        }
        return alternatives
    }

    /// The quoted string for one term, or nil when it has no tokens.
    func compile(_ term: Term, stemming: Bool, readingPatterns: Bool = false) -> String? {
        let tokens = SearchTokenizer.tokens(inQuery: term.text, stemming: stemming)
        guard !tokens.isEmpty else { return nil }
        let utf8 = Array(term.text.utf8)
        if readingPatterns && term.matchesWordEnds {
            // One word (the parser checks it): the words it ends, or holds.
            let piece = String(decoding: utf8[tokens[0].byteRange], as: UTF8.self)
            return "\"*" + piece + (term.explicitPrefix ? "*" : "") + "\""
        }
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
            if readingPatterns && index == 0 && token.kind == .cjkUnigram {
                // Every token of the character, or before other text those it ends.
                piece = "*" + piece
            }
            let prefix: Bool
            switch token.kind {
            case .word: prefix = prefixWords || (isLast && term.explicitPrefix)
            // A run of one character is a prefix (it also starts the pairs of a longer run)
            // unless other text follows it in the term: then it must end its run there, so it
            // is matched exactly (a run of one; with `readingPatterns`, also a pair ending with it).
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
