/// Cipherdex's full-text tokenizer, shared by the FTS4 index (as the SQLite tokenizer module
/// `cipherdex`, or `cipherdex_stem` with English stemming) and by the query parser, so a query is
/// always cut and normalised exactly as the indexed text was.
///
/// - Words are maximal runs of letters, digits and combining marks (Unicode properties); an
///   apostrophe between two letters joins them (`don't` → `dont`). Everything else separates.
/// - Case is folded and diacritics removed (`É` → `e`, `ß` → `ss`, `ø` → `o`, `ﬁ` → `fi`,
///   full-width Latin → ASCII); marks of other scripts (Indic vowel signs...) are kept.
/// - CJK runs (Han, Hiragana, Katakana, Hangul, Bopomofo, Thai, Lao, Khmer, Myanmar) become
///   overlapping bigrams (`東京都` → `東京`, `京都`); a run of one character is a unigram.
///   Half-width kana are widened. Except in Hangul, a run goes on across white space and the
///   zero-width space; a decomposed Thai or Lao AM (`กํา`) is the composed one (`กำ`).
/// - A word hyphenated at a line end (`log-⏎likelihood`, `com-⏎puter`) is one word, as a
///   soft hyphen's is (`loglikelihood`, `computer`); a query's text is cut without this
///   (`tokens(inQuery:stemming:)`), and its hyphenated words also look for the joined form.
/// - With stemming, ASCII words are reduced with the Porter algorithm (`running` → `run`).
/// - Byte offsets are exact offsets into the UTF-8 input.
public enum SearchTokenizer {
    /// The FTS tokenizer name without stemming.
    public static let name = "cipherdex"
    /// The FTS tokenizer name with English Porter stemming.
    public static let stemmingName = "cipherdex_stem"
    /// Tokens longer than this many UTF-8 bytes are truncated (their byte range still covers the
    /// whole word), so binary junk cannot bloat the index.
    public static let maximumTokenBytes = 128

    /// All tokens of `text`.
    public static func tokens(in text: String, stemming: Bool = false) -> [SearchToken] {
        var copy = text
        return copy.withUTF8 { tokens(inUTF8: $0, stemming: stemming) }
    }

    /// All tokens of a query's `text`: as `tokens(in:stemming:)`, except that a hyphen before a
    /// line break separates two words as any other hyphen does (each token is then one piece of
    /// the query's text, and the words are a phrase).
    static func tokens(inQuery text: String, stemming: Bool = false) -> [SearchToken] {
        var copy = text
        return copy.withUTF8 { tokens(inUTF8: $0, stemming: stemming, joinsLineEndHyphens: false) }
    }

    /// All tokens of UTF-8 bytes (invalid sequences separate tokens).
    static func tokens(
        inUTF8 buffer: UnsafeBufferPointer<UInt8>, stemming: Bool = false, joinsLineEndHyphens: Bool = true
    ) -> [SearchToken] {
        var scanner = TokenScanner(buffer, stemming: stemming, joinsLineEndHyphens: joinsLineEndHyphens)
        var tokens: [SearchToken] = []
        while let token = scanner.next() {
            tokens.append(
                SearchToken(
                    text: String(decoding: scanner.text, as: UTF8.self), byteRange: token.range,
                    position: token.position, kind: token.kind))
        }
        return tokens
    }
}
