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
    /// a phrase. A hyphenated word, or a phrase holding one, also stands for itself with each of
    /// its hyphens taken out in turn (`log-likelihood` OR `loglikelihood`; see
    /// `compiledAlternatives`): a word hyphenated at a line end is indexed as one word
    /// (`log-⏎likelihood`, tokenizer revision 6). Words are prefixes unless `.exactWords` (a
    /// trailing `*` always is); phrase words are prefixes unless `.exactPhrases`. CJK bigrams are never prefixes; a single CJK
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
            compiledAlternatives($0, stemming: stemming, readingPatterns: readingPatterns, excluded: true)
        }
        return CompiledSearchQuery(
            match: parts.joined(separator: " "),
            exclusion: excluded.isEmpty ? nil : excluded.joined(separator: " OR "))
    }

    /// The most hyphens a term may have for each to be taken out in an alternative of its own;
    /// a term with more gets none (each alternative is another phrase to read).
    static let maximumJoinedHyphens = 4

    /// The characters that hyphenate a word in a query: the hyphen-minus, U+2010 HYPHEN and
    /// U+2011 NON-BREAKING HYPHEN.
    static let hyphens: Set<Character> = ["-", "\u{2010}", "\u{2011}"]

    /// Where `text` holds a hyphen between two letters or digits, with white space that holds a
    /// line break allowed after it (a word pasted from a page, hyphenated at a line end): each
    /// hyphen's index and the index of the letter or digit after it.
    static func hyphenPoints(_ characters: [Character]) -> [(hyphen: Int, resume: Int)] {
        var points: [(hyphen: Int, resume: Int)] = []
        for index in characters.indices.dropFirst() where hyphens.contains(characters[index]) {
            guard characters[index - 1].isLetter || characters[index - 1].isNumber else { continue }
            var resume = index + 1
            var sawBreak = false
            while resume < characters.count, characters[resume].isWhitespace {
                if characters[resume].isNewline { sawBreak = true }
                resume += 1
            }
            guard resume == index + 1 || sawBreak, resume < characters.count,
                characters[resume].isLetter || characters[resume].isNumber
            else { continue }
            points.append((index, resume))
        }
        return points
    }

    /// The quoted strings one term stands for, OR'd: the term, and for a hyphenated word or a
    /// phrase with one the text with each such hyphen taken out in turn (a word hyphenated at a
    /// line end there is one token: `log-⏎likelihood` is `loglikelihood`), when it has at most
    /// `maximumJoinedHyphens`. A joined hyphenated word is an exact word (`co-op` also finds
    /// `coop`, not `cooperation`), unless a `*` follows it; in an exclusion every joined form is
    /// exact. Empty when the term has no tokens.
    func compiledAlternatives(_ term: Term, stemming: Bool, readingPatterns: Bool, excluded: Bool = false)
        -> [String]
    {
        guard let whole = compile(term, stemming: stemming, readingPatterns: readingPatterns) else { return [] }
        guard term.kind == .hyphenated || term.kind == .phrase, !term.matchesWordEnds else { return [whole] }
        let characters = Array(term.text)
        let points = Self.hyphenPoints(characters)
        guard !points.isEmpty, points.count <= Self.maximumJoinedHyphens else { return [whole] }
        var alternatives = [whole]
        for point in points {
            var joined = term
            joined.text = String(characters[..<point.hyphen] + characters[point.resume...])
            if excluded {
                joined.kind = .exactWord
                joined.explicitPrefix = false
            } else if term.kind == .hyphenated {
                joined.kind = .exactWord
            }
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
