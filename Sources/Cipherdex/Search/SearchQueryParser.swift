/// Parses the user's search syntax into a `SearchQuery`, reporting errors with character
/// positions. Only the characters `"`, `-` (before a term), `*` (after a term) and the word `OR`
/// (upper case, standing alone) are syntax; everything else is text for the tokenizer.
struct SearchQueryParser {
    /// One lexical item.
    private enum Item {
        /// A term, possibly excluded.
        case term(SearchQuery.Term, excluded: Bool)
        /// `OR` at a position.
        case or(Int)
    }

    /// The query's characters.
    private let characters: [Character]
    /// The options to record in the result.
    private let options: SearchQuery.Options

    /// A parser for `text`.
    init(_ text: String, options: SearchQuery.Options) {
        self.characters = Array(text)
        self.options = options
    }

    /// Parses the whole query.
    func parse() throws -> SearchQuery {
        guard characters.count <= SearchQuery.maximumLength else {
            throw SearchQueryError.tooLong(length: characters.count, limit: SearchQuery.maximumLength)
        }
        if options.contains(.exactPhrases) { return try wholePhrase() }
        let items = try lex()
        guard !items.isEmpty else { throw SearchQueryError.empty }
        // A phrase counts its words: each is matched (and its positions read) like a term, and a
        // quoted phrase of 499 words took 19 s where 65 words were refused.
        let termCount = items.reduce(0) { count, item in
            guard case .term(let term, _) = item else { return count }
            return count + max(1, SearchTokenizer.tokens(in: term.text).count)
        }
        guard termCount <= SearchQuery.maximumTerms else {
            throw SearchQueryError.tooManyTerms(count: termCount, limit: SearchQuery.maximumTerms)
        }
        let query = try combine(items)
        guard !query.clauses.isEmpty else { throw SearchQueryError.onlyExclusions }
        let searchable = query.clauses.contains { clause in
            clause.alternatives.contains { !SearchTokenizer.tokens(in: $0.text).isEmpty }
        }
        guard searchable else { throw SearchQueryError.noSearchableTerms }
        return query
    }

    /// With `.exactPhrases` (PDFLibrary's `matchExactPhrasesOnly`), the whole search string is
    /// one phrase of exact words: "this is a test" does not match "this is a quick test", and
    /// quotes, `-`, `OR` and `*` are text like any other.
    private func wholePhrase() throws -> SearchQuery {
        let text = String(characters)
        guard characters.contains(where: { !$0.isWhitespace }) else { throw SearchQueryError.empty }
        let words = SearchTokenizer.tokens(in: text).count
        guard words > 0 else { throw SearchQueryError.noSearchableTerms }
        guard words <= SearchQuery.maximumTerms else {
            throw SearchQueryError.tooManyTerms(count: words, limit: SearchQuery.maximumTerms)
        }
        let start = characters.firstIndex { !$0.isWhitespace } ?? 0
        return SearchQuery(clauses: [.init([.init(kind: .phrase, text: text, position: start)])], options: options)
    }

    /// Throws `markOnOperator` when the character at `index` is `operator` with a combining mark
    /// (one character of the two: compared whole, it was text, and `-\u{301}beta` found beta).
    private func refuseMark(at index: Int, on operator: Unicode.Scalar) throws {
        let scalars = characters[index].unicodeScalars
        if scalars.first == `operator` && scalars.count > 1 {
            throw SearchQueryError.markOnOperator(position: index + 1)
        }
    }

    /// Splits the characters into terms and operators.
    private func lex() throws -> [Item] {
        var items: [Item] = []
        var index = 0
        let count = characters.count
        // A quote is syntax wherever it stands.
        for position in characters.indices { try refuseMark(at: position, on: "\"") }
        while index < count {
            if characters[index].isWhitespace {
                index += 1
                continue
            }
            let start = index
            var excluded = false
            try refuseMark(at: index, on: "-")
            if characters[index] == "-" {
                guard index + 1 < count, !characters[index + 1].isWhitespace else {
                    throw SearchQueryError.danglingOperator(position: index + 1)
                }
                excluded = true
                index += 1
            }
            if characters[index] == "\"" {
                guard let close = characters[(index + 1)...].firstIndex(of: "\"") else {
                    throw SearchQueryError.unterminatedQuote(position: index + 1)
                }
                let text = String(characters[(index + 1)..<close])
                index = close + 1
                var prefix = false
                if index < count { try refuseMark(at: index, on: "*") }
                while index < count, characters[index] == "*" {
                    prefix = true
                    index += 1
                }
                items.append(
                    .term(
                        SearchQuery.Term(kind: .phrase, text: text, explicitPrefix: prefix, position: start),
                        excluded: excluded))
                continue
            }
            var end = index
            while end < count, characters[end] != "\"" {
                if characters[end].isWhitespace {
                    // A word hyphenated at a line end with a soft hyphen or a hyphen (pasted from
                    // a page) is one word, as the tokenizer cuts it.
                    guard end > index,
                        characters[end - 1] == "\u{AD}" || SearchQuery.hyphens.contains(characters[end - 1]),
                        let resume = softHyphenResumption(end)
                    else { break }
                    end = resume
                    continue
                }
                end += 1
            }
            var word = characters[index..<end]
            index = end
            if let first = word.indices.first, let last = word.indices.last {
                try refuseMark(at: first, on: "*")
                try refuseMark(at: last, on: "*")
            }
            if !excluded, String(word) == "OR" {
                items.append(.or(start))
                continue
            }
            var prefix = false
            while word.last == "*" {
                prefix = true
                word.removeLast()
            }
            var wordEnds = false
            while word.first == "*" {
                wordEnds = true
                word.removeFirst()
            }
            guard !word.isEmpty else {
                throw SearchQueryError.bareWildcard(position: (excluded ? start + 1 : start) + 1)
            }
            let text = String(word)
            if wordEnds {
                // Ends-with and inner matches work on one word of letters and digits.
                let tokens = SearchTokenizer.tokens(in: text)
                guard tokens.count == 1, tokens[0].kind == .word else {
                    throw SearchQueryError.unsupportedWildcard(position: (excluded ? start + 1 : start) + 1)
                }
            }
            var term = SearchQuery.Term(
                kind: Self.isHyphenated(text) ? .hyphenated : .word, text: text, explicitPrefix: prefix, position: start
            )
            term.matchesWordEnds = wordEnds
            items.append(.term(term, excluded: excluded))
        }
        return items
    }

    /// After a soft hyphen, where its word goes on: the character after the white space at
    /// `index`, when that white space holds a line break and a letter or digit follows.
    private func softHyphenResumption(_ index: Int) -> Int? {
        var end = index
        var sawBreak = false
        while end < characters.count, characters[end].isWhitespace {
            if characters[end].isNewline { sawBreak = true }
            end += 1
        }
        guard sawBreak, end < characters.count, characters[end].isLetter || characters[end].isNumber else { return nil }
        return end
    }

    /// Groups terms into clauses joined by `OR`, and collects exclusions.
    private func combine(_ items: [Item]) throws -> SearchQuery {
        var clauses: [SearchQuery.Clause] = []
        var exclusions: [SearchQuery.Term] = []
        var pendingOr: Int?
        var previousWasPositiveTerm = false
        for (offset, item) in items.enumerated() {
            switch item {
            case .or(let position):
                guard previousWasPositiveTerm else {
                    if offset > 0, case .term(let term, excluded: true) = items[offset - 1] {
                        throw SearchQueryError.exclusionInAlternative(position: term.position + 1)
                    }
                    throw SearchQueryError.danglingOperator(position: position + 1)
                }
                pendingOr = position
                previousWasPositiveTerm = false
            case .term(let term, let excluded):
                if pendingOr != nil {
                    if excluded { throw SearchQueryError.exclusionInAlternative(position: term.position + 1) }
                    clauses[clauses.count - 1].alternatives.append(term)
                    pendingOr = nil
                } else if excluded {
                    exclusions.append(term)
                } else {
                    clauses.append(SearchQuery.Clause([term]))
                }
                previousWasPositiveTerm = !excluded
            }
        }
        if let pendingOr { throw SearchQueryError.danglingOperator(position: pendingOr + 1) }
        return SearchQuery(clauses: clauses, exclusions: exclusions, options: options)
    }

    /// Whether `text` has a hyphen between two letters or digits (`SearchQuery.hyphenPoints`).
    private static func isHyphenated(_ text: String) -> Bool {
        !SearchQuery.hyphenPoints(Array(text)).isEmpty
    }
}
