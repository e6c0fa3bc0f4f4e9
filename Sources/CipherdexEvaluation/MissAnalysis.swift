import Cipherdex

/// Sorts each missed page (expected, not found) and each extra page (found, not expected) into
/// a cause, from the library's own extraction of the page: whether the text was lost before the
/// index (extraction) or the index had the text and the tokenizer or query did not match it.
public struct MissAnalysis: Sendable {
    /// A cause, with how many (query, page) pairs it explains and a few examples.
    public struct Category: Sendable, Codable {
        /// Misses or extra pages it explains.
        public var count = 0
        /// Up to eight examples.
        public var examples: [String] = []
    }

    /// Causes of missed pages.
    public private(set) var misses: [String: Category] = [:]
    /// Causes of extra pages.
    public private(set) var extras: [String: Category] = [:]

    private let corpus: TruthCorpus
    private let index: TruthIndex
    private let extracted: [[String]?]
    private let statuses: [String: IndexStatus]
    private var tokenizer = TruthTokenizer()
    private var ourTokens: [Int: [TruthToken]] = [:]

    /// An analysis of outcomes over `corpus`, with the library's extraction `extracted`.
    public init(corpus: TruthCorpus, index: TruthIndex, extracted: [[String]?], statuses: [String: IndexStatus]) {
        self.corpus = corpus
        self.index = index
        self.extracted = extracted
        self.statuses = statuses
    }

    /// Adds the causes of one query's misses and extra pages.
    public mutating func analyse(_ outcome: QueryOutcome) {
        for page in outcome.expected.subtracting(outcome.found).sorted() {
            let (cause, detail) = missCause(outcome.query, page: page)
            record(&misses, cause, example: example(outcome.query, page: page, detail))
        }
        for page in outcome.found.subtracting(outcome.expected).sorted() {
            let (cause, detail) = extraCause(outcome.query, page: page)
            record(&extras, cause, example: example(outcome.query, page: page, detail))
        }
    }

    private func record(_ table: inout [String: Category], _ cause: String, example: String) {
        table[cause, default: Category()].count += 1
        if table[cause]!.examples.count < 8 { table[cause]!.examples.append(example) }
    }

    private func example(_ query: EvaluationQuery, page: Int, _ detail: String) -> String {
        let ref = index.pages[page]
        return
            "`\(query.text)` (\(query.kind.rawValue), \(query.script.rawValue)) \(corpus.documents[ref.document].name) p.\(ref.page + 1)"
            + (detail.isEmpty ? "" : ": \(detail)")
    }

    /// The library's extraction of a page, tokenised the truth's way (nil when it has none).
    private mutating func ours(_ page: Int) -> [TruthToken]? {
        if let known = ourTokens[page] { return known }
        let ref = index.pages[page]
        guard let pages = extracted[ref.document], ref.page < pages.count else { return nil }
        let tokens = tokenizer.tokens(of: pages[ref.page])
        ourTokens[page] = tokens
        return tokens
    }

    private mutating func missCause(_ query: EvaluationQuery, page: Int) -> (String, String) {
        let name = corpus.documents[index.pages[page].document].name
        switch statuses[name] {
        case .finished(let count)?:
            if index.pages[page].page >= count { return ("extraction: page missing", "") }
        case let status?:
            return ("document not indexed", "\(status)")
        case nil:
            return ("document not indexed", "no status")
        }
        guard let tokens = ours(page) else { return ("extraction: page missing", "") }
        switch query.rule {
        case .words(let words, let prefix):
            if let at = TruthIndex.firstMatch(words, prefix: prefix, in: tokens) {
                let matched = tokens[at..<at + words.count]
                let shown = "our text `\(Self.context(tokens, at, words.count))`"
                if matched.contains(where: \.touchesApostrophe) {
                    return ("tokenizer: apostrophe joins the word to its neighbour", shown)
                }
                if matched.contains(where: \.hadFormatCharacter) {
                    return ("tokenizer: format character (soft hyphen, ZWJ…) inside the word", shown)
                }
                if matched.contains(where: { $0.script != matched.first!.script }) {
                    return ("tokenizer: mixed scripts", shown)
                }
                return ("tokenizer/query: other", shown)
            }
            let joined = words.reduce([], +)
            if let glued = tokens.first(where: { $0.folded.count > joined.count && Self.contains($0.folded, joined) }) {
                return ("extraction: word glued to its neighbour", "our token `\(glued.text)`")
            }
            return ("extraction: text differs or missing", Self.truthContext(index.tokens[page], words, prefix: prefix))
        case .substring(let needle):
            if let (at, _) = TruthIndex.firstRun(containing: needle, in: tokens) {
                let run = tokens[at]
                if !run.runBreaks.isEmpty && !TruthIndex.runsContain(run, needle) {
                    return ("tokenizer: run broken by whitespace or a line break", "our run `\(run.text.prefix(30))`")
                }
                switch run.script {
                case .thai, .lao, .khmer, .myanmar:
                    return ("tokenizer: script without spaces cut only at spaces", "our run `\(run.text.prefix(30))`")
                default:
                    return ("tokenizer/query: other (run)", "our run `\(run.text.prefix(30))`")
                }
            }
            return ("extraction: text differs or missing", "")
        }
    }

    private mutating func extraCause(_ query: EvaluationQuery, page: Int) -> (String, String) {
        guard let tokens = ours(page) else { return ("found on a page we did not extract", "") }
        switch query.rule {
        case .words(let words, let prefix):
            if let at = TruthIndex.firstMatch(words, prefix: prefix, in: tokens) {
                return (
                    "extraction: our text has it, pdftotext's not",
                    "our text `\(Self.context(tokens, at, words.count))`"
                )
            }
        case .substring(let needle):
            if TruthIndex.firstRun(containing: needle, in: tokens) != nil {
                return ("extraction: our text has it, pdftotext's not", "")
            }
        }
        return ("tokenizer/query matches more than the truth", "")
    }

    /// A few tokens around a match, as text.
    static func context(_ tokens: [TruthToken], _ at: Int, _ count: Int) -> String {
        let range = max(0, at - 2)..<min(tokens.count, at + count + 2)
        return tokens[range].map(\.text).joined(separator: " ")
    }

    /// Where the truth has the words, to show what our extraction lost.
    static func truthContext(_ tokens: [TruthToken], _ words: [[UInt8]], prefix: Bool) -> String {
        guard let at = TruthIndex.firstMatch(words, prefix: prefix, in: tokens) else { return "" }
        return "pdftotext `\(context(tokens, at, words.count))`"
    }

    /// Whether `haystack` contains `needle`.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count, !needle.isEmpty else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && haystack[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}

extension TruthIndex {
    /// Whether `needle` lies inside one whitespace-free piece of `run` (between two breaks).
    static func runsContain(_ run: TruthToken, _ needle: [UInt8]) -> Bool {
        let cuts = [0] + run.runBreaks + [run.runScalars.count]
        for (start, end) in zip(cuts, cuts.dropFirst()) where end > start {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: run.runScalars[start..<end])
            if MissAnalysis.contains(Array(String(view).utf8), needle) { return true }
        }
        return false
    }
}
