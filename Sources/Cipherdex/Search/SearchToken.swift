/// One token produced by `SearchTokenizer`: the normalised text that goes into (or is looked up
/// in) the full-text index, where it came from in the UTF-8 input, and its position.
public struct SearchToken: Equatable, Hashable, Sendable {
    /// What kind of text the token came from.
    public enum Kind: Equatable, Hashable, Sendable {
        /// A word of a script that separates words (Latin, Greek, Cyrillic, Arabic, digits...).
        case word
        /// Two adjacent characters of a CJK run (Han, Hiragana, Katakana, Hangul).
        case cjkBigram
        /// A CJK run of a single character.
        case cjkUnigram
    }

    /// The folded text: lower-cased, diacritics removed, compatibility forms unified (and stemmed
    /// when stemming is on).
    public var text: String
    /// The token's byte range in the UTF-8 input (what FTS `offsets()`/`snippet()` report).
    public var byteRange: Range<Int>
    /// The token's ordinal position in the input, counting from 0.
    public var position: Int
    /// The kind of text it came from.
    public var kind: Kind

    /// Creates a token.
    public init(text: String, byteRange: Range<Int>, position: Int, kind: Kind = .word) {
        self.text = text
        self.byteRange = byteRange
        self.position = position
        self.kind = kind
    }
}
