/// The tokenised truth pages and a vocabulary over them, to compute each query's expected pages.
public struct TruthIndex: Sendable {
    /// A page: its document's index in the corpus and its index in the document.
    public struct PageRef: Hashable, Sendable, Comparable {
        /// The document's index in `TruthCorpus.documents`.
        public var document: Int
        /// The page, from 0.
        public var page: Int

        /// Orders by document, then page.
        public static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.document, lhs.page) < (rhs.document, rhs.page)
        }
    }

    /// What a query must find on a page to match it.
    public enum Rule: Sendable, Hashable {
        /// Consecutive words, each equal to (or, with `prefix`, beginning) the page's words.
        case words([[UInt8]], prefix: Bool)
        /// A substring of a run of a substring script (whitespace inside runs removed).
        case substring([UInt8])
    }

    /// Every page, in corpus order.
    public let pages: [PageRef]
    /// The tokens of each page.
    public let tokens: [[TruthToken]]
    /// The folded words of the whole corpus, sorted by UTF-8.
    let vocabulary: [[UInt8]]
    /// Per vocabulary word: (page number, token index) of each occurrence.
    let postings: [[(page: Int32, token: Int32)]]
    /// Page numbers that have runs of substring scripts.
    let runPages: [Int]

    /// Tokenises the corpus.
    public init(corpus: TruthCorpus) {
        var tokenizer = TruthTokenizer()
        var pages: [PageRef] = []
        var tokens: [[TruthToken]] = []
        var occurrences: [[UInt8]: [(page: Int32, token: Int32)]] = [:]
        var runPages: [Int] = []
        for (documentIndex, document) in corpus.documents.enumerated() {
            for (pageIndex, text) in document.pages.enumerated() {
                let number = pages.count
                pages.append(PageRef(document: documentIndex, page: pageIndex))
                let pageTokens = tokenizer.tokens(of: text)
                var hasRun = false
                for (index, token) in pageTokens.enumerated() {
                    if token.isRun {
                        hasRun = true
                    } else {
                        occurrences[token.folded, default: []].append((Int32(number), Int32(index)))
                    }
                }
                if hasRun { runPages.append(number) }
                tokens.append(pageTokens)
            }
        }
        self.pages = pages
        self.tokens = tokens
        self.runPages = runPages
        let sorted = occurrences.keys.sorted { $0.lexicographicallyPrecedes($1) }
        vocabulary = sorted
        postings = sorted.map { occurrences[$0]! }
    }

    /// The range of vocabulary words equal to `word` or, with `prefix`, beginning with it.
    func vocabularyRange(_ word: [UInt8], prefix: Bool) -> Range<Int> {
        var low = 0
        var high = vocabulary.count
        while low < high {
            let middle = (low + high) / 2
            if vocabulary[middle].lexicographicallyPrecedes(word) { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < vocabulary.count, prefix ? vocabulary[end].starts(with: word) : vocabulary[end] == word { end += 1 }
        return low..<end
    }

    /// Whether any word of the corpus begins with `word`.
    public func hasWord(beginning word: [UInt8]) -> Bool { !vocabularyRange(word, prefix: true).isEmpty }

    /// Page numbers (indices into `pages`) that match `rule`.
    public func matchingPages(_ rule: Rule) -> Set<Int> {
        var result = Set<Int>()
        switch rule {
        case .words(let words, let prefix):
            guard let first = words.first else { return [] }
            for entry in vocabularyRange(first, prefix: prefix) {
                for occurrence in postings[entry] where !result.contains(Int(occurrence.page)) {
                    if Self.matches(words, prefix: prefix, in: tokens[Int(occurrence.page)], at: Int(occurrence.token))
                    {
                        result.insert(Int(occurrence.page))
                    }
                }
            }
        case .substring(let needle):
            for page in runPages where Self.firstRun(containing: needle, in: tokens[page]) != nil {
                result.insert(page)
            }
        }
        return result
    }

    /// Whether `words` match `tokens` from `start` on.
    static func matches(_ words: [[UInt8]], prefix: Bool, in tokens: [TruthToken], at start: Int) -> Bool {
        guard start + words.count <= tokens.count else { return false }
        for (offset, word) in words.enumerated() {
            let token = tokens[start + offset]
            if token.isRun { return false }
            if prefix ? !token.folded.starts(with: word) : token.folded != word { return false }
        }
        return true
    }

    /// Where `words` first match `tokens`, if they do.
    public static func firstMatch(_ words: [[UInt8]], prefix: Bool, in tokens: [TruthToken]) -> Int? {
        tokens.indices.first { matches(words, prefix: prefix, in: tokens, at: $0) }
    }

    /// The first run of `tokens` whose folded letters contain `needle`, and the byte offset.
    public static func firstRun(containing needle: [UInt8], in tokens: [TruthToken]) -> (token: Int, offset: Int)? {
        guard let head = needle.first else { return nil }
        for (index, token) in tokens.enumerated() where token.isRun && token.folded.count >= needle.count {
            let bytes = token.folded
            var position = 0
            while position + needle.count <= bytes.count {
                if bytes[position] == head && bytes[position..<position + needle.count].elementsEqual(needle) {
                    return (index, position)
                }
                position += 1
            }
        }
        return nil
    }
}
