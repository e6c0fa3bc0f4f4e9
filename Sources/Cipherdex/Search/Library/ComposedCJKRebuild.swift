/// Search migration 1009, tokenizer revision 7: half-width voiced kana (`ｶﾞ`, U+FF76 U+FF9E) fold
/// to the full-width kana (`ガ`), and decomposed Hangul (conjoining jamo, `ᄒ ᅡ ᆫ`) is cut as the
/// syllables it spells (`한`), so either form finds the other.
///
/// The page-by-page re-cut of revisions 4–6 (`TokenizerRecut`) needs a text that this build cuts
/// as the older one cut the original; none exists here (this build composes every such pair),
/// so when any page holds text that revision 7 may cut differently, the whole index is cut
/// again (`SearchSchema.rebuild`, as migrations 7, 1000 and 1001 did). A store without such text
/// costs one scan of its page text (read and inflated in SQL, nothing tokenised or written).
/// Everything runs in the open's one transaction.
enum ComposedCJKRebuild {
    /// A SQL condition on `body` (a page's text) true for every page revision 7 may cut
    /// differently: a half-width voicing mark (U+FF9E, U+FF9F, whose NFKC the old composition
    /// left apart from the kana) or a conjoining Hangul vowel or final
    /// (`ScalarClass.isHangulTrailing`). Other marks after a CJK character (`カ\u{3099}`,
    /// `ｶ\u{3099}`) composed alike before, except U+11173 after a Hangul leading consonant,
    /// which the old composition also gave differently (found by comparing both for every mark
    /// after a sample of each kind of CJK character: kana, half-width kana, Hangul, ideographs,
    /// Kangxi radicals, compatibility ideographs, Thai, Myanmar).
    static let candidates =
        "body GLOB '*[\u{FF9E}\u{FF9F}\u{1160}-\u{11FF}\u{D7B0}-\u{D7FF}\u{11173}]*'"

    /// Runs the migration; returns whether the index was cut again.
    @discardableResult
    static func run(_ db: Connection) throws -> Bool {
        defer {
            // The notes of the open's migrations end with the last of them.
            try? db.execute("DROP TABLE IF EXISTS temp.\(SearchSchema.recutMarker)")
            try? db.execute("DROP TABLE IF EXISTS temp.\(TokenizerRecut.recutPages)")
        }
        // A migration of the same open already cut the whole index with this build's tokenizer.
        if try db.scalar(
            "SELECT count(*) FROM sqlite_temp_master WHERE name = ?", [.text(SearchSchema.recutMarker)])?
            .integerValue ?? 0 > 0
        {
            return false
        }
        let uncompress = PageTextCompression.uncompressName
        let affected = try db.scalar(
            "SELECT docid FROM (SELECT docid, \(uncompress)(c0body) AS body FROM search_text_content LIMIT -1) "
                + "WHERE \(candidates) LIMIT 1")
        guard affected != nil else { return false }
        try SearchSchema.rebuild(db, tokenizer: try SearchSchema.tokenizer(db))
        return true
    }
}
