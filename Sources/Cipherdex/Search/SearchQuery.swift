/// A parsed search query: the AST of the user's syntax.
///
/// Syntax (see `SearchQueryParser`): words; `"exact phrases"`; `-excluded` words and phrases;
/// `OR` between terms; a trailing `*` for an explicit prefix. A hyphenated word
/// (`state-of-the-art`) is a phrase of its parts. Every clause must match; within a clause, any
/// alternative may; no exclusion may.
///
/// Compile it with `compiled(stemming:)` into FTS4 MATCH expressions that contain only
/// quoted tokens, `*` and `OR`, so nothing the user typed is FTS syntax.
public struct SearchQuery: Equatable, Sendable {
    /// How words and phrases match.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: Int
        /// Creates options from bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Words match whole words only (a trailing `*` still makes a prefix). By default every
        /// word is a prefix: `inv` finds `invoice`.
        public static let exactWords = Options(rawValue: 1 << 0)
        /// The whole search string is one exact phrase (PDFLibrary's `matchExactPhrasesOnly`):
        /// its words in order, each matching whole words only; quotes, `-`, `OR` and `*` are
        /// then plain text. By default a quoted phrase's words are prefixes.
        public static let exactPhrases = Options(rawValue: 1 << 1)
    }

    /// One term as typed.
    public struct Term: Equatable, Sendable {
        /// What syntax produced the term.
        public enum Kind: Equatable, Sendable {
            /// A bare word.
            case word
            /// A bare word with hyphens between its parts: a phrase of the parts, or the word
            /// with one of its hyphens taken out (as a word hyphenated at a line end there is
            /// indexed: `log-likelihood` also finds `log-⏎likelihood`).
            case hyphenated
            /// A quoted phrase.
            case phrase
            /// One whole word, never a prefix (what a leading `*` expands to).
            case exactWord
        }

        /// The syntax that produced it.
        public var kind: Kind
        /// The text without quotes, `-` or the trailing `*`.
        public var text: String
        /// Whether a `*` followed it.
        public var explicitPrefix: Bool
        /// Whether a `*` came before it: `*ology` matches the words that end in `ology`, and
        /// with a trailing `*` too (`*olog*`) the words that contain `olog`. The library reads
        /// every indexed word such a term matches (`SearchLibrary.search`, `TermPattern`).
        public var matchesWordEnds = false
        /// The character offset where the term (or its `-`) starts in the query.
        public var position: Int

        /// Creates a term.
        public init(kind: Kind, text: String, explicitPrefix: Bool = false, position: Int) {
            self.kind = kind
            self.text = text
            self.explicitPrefix = explicitPrefix
            self.position = position
        }
    }

    /// Terms joined by `OR`: the clause matches when any of them does.
    public struct Clause: Equatable, Sendable {
        /// The alternatives, at least one.
        public var alternatives: [Term]

        /// Creates a clause.
        public init(_ alternatives: [Term]) { self.alternatives = alternatives }
    }

    /// The most characters a query may have.
    public static let maximumLength = 1000
    /// The most terms (including exclusions) a query may have, each word of a phrase counted.
    public static let maximumTerms = 64

    /// Clauses that must all match; at least one.
    public var clauses: [Clause]
    /// Terms that must not match.
    public var exclusions: [Term]
    /// The matching options given to the parser.
    public var options: Options

    /// Creates a query from its parts.
    public init(clauses: [Clause], exclusions: [Term] = [], options: Options = []) {
        self.clauses = clauses
        self.exclusions = exclusions
        self.options = options
    }

    /// Parses `text`; throws `SearchQueryError` for malformed input.
    public static func parse(_ text: String, options: Options = []) throws -> SearchQuery {
        try SearchQueryParser(text, options: options).parse()
    }
}
