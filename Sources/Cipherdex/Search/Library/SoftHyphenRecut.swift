/// Search migration 1006 (tokenizer revision 4): the pages where a soft hyphen (U+00AD) ends a
/// line before the rest of its word (`desoxy\u{AD}⏎corticostérone`) are cut again, which now
/// makes one word of them; every other page cuts as before, so it is left alone.
///
/// FTS4 removes a row's terms by cutting its stored text again with the table's tokenizer, so a
/// row cut by revision 3 cannot simply be deleted under revision 4 (the terms it would remove are
/// not those in the index; the old ones would stay, pointing at a row that is gone). For each
/// affected page, the stored text is first replaced, in the content table itself, by the same
/// text without those soft hyphens, which revision 4 cuts exactly as revision 3 cut the original;
/// the row is then deleted (removing the old terms) and inserted again with its original text,
/// under its docid. Finding the pages reads and inflates every page's text once (no tokenising,
/// no index writes except for the pages found), against a full re-cut (`SearchSchema.rebuild`,
/// as migrations 7 and 1000 did) that tokenises and writes the whole index again.
enum SoftHyphenRecut {
    /// Re-cuts the affected pages; returns how many there were.
    @discardableResult
    static func run(_ db: Connection) throws -> Int {
        // A migration of the same open that rebuilt the whole index (7, 1000, 1001 on an older
        // store) cut it with revision 4 already: re-cutting those pages as revision-3 rows would
        // take tokens off FTS4's total that were never counted.
        if try db.scalar(
            "SELECT count(*) FROM sqlite_temp_master WHERE name = ?", [.text(SearchSchema.recutMarker)])?
            .integerValue ?? 0 > 0
        {
            try db.execute("DROP TABLE temp.\(SearchSchema.recutMarker)")
            return 0
        }
        let uncompress = PageTextCompression.uncompressName
        let candidates = try db.rows(
            "SELECT docid FROM search_text_content WHERE instr(\(uncompress)(c0body), char(173)) > 0"
        ).compactMap { $0.first?.integerValue }
        var recut = 0
        for docid in candidates {
            guard
                let body = try db.scalar(
                    "SELECT \(uncompress)(c0body) FROM search_text_content WHERE docid = ?", [.integer(docid)])?
                    .textValue
            else { continue }
            let previous = revision3Equivalent(body)
            guard previous != body else { continue }
            try db.execute(
                "UPDATE search_text_content SET c0body = \(PageTextCompression.compressName)(?) WHERE docid = ?",
                [.text(previous), .integer(docid)])
            try db.execute("DELETE FROM search_text WHERE docid = ?", [.integer(docid)])
            try db.execute("INSERT INTO search_text (docid, body) VALUES (?, ?)", [.integer(docid), .text(body)])
            recut += 1
        }
        return recut
    }

    /// `text` without the soft hyphens that revision 4 joins a word across (those directly
    /// followed by white space that holds a line break, repeated until none is left, so that a
    /// soft hyphen before another is taken too): revision 4 cuts the result into the tokens, at
    /// the positions, that revision 3 cut `text` into.
    static func revision3Equivalent(_ text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        var changed = true
        while changed {
            changed = false
            var kept: [Unicode.Scalar] = []
            kept.reserveCapacity(scalars.count)
            for (index, scalar) in scalars.enumerated() {
                if scalar.value == 0xAD, breakFollows(scalars, after: index) {
                    changed = true
                    continue
                }
                kept.append(scalar)
            }
            scalars = kept
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// Whether white space holding a line break follows `scalars[index]`.
    private static func breakFollows(_ scalars: [Unicode.Scalar], after index: Int) -> Bool {
        var next = index + 1
        while next < scalars.count {
            switch scalars[next].value {
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
            case 0x09, 0x20, 0xA0: next += 1
            default: return false
            }
        }
        return false
    }
}
