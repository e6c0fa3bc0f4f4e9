/// The search migrations of tokenizer revisions that change how some pages are cut (1006:
/// revision 4, 1007: revision 5, 1008: revision 6): only the pages whose stored text the revision cuts differently
/// are cut again; every other page is left alone. (Revision 7, 1009, has no such text and cuts
/// the whole index again when needed: `ComposedCJKRebuild`.)
///
/// FTS4 removes a row's terms by cutting its stored text again with the table's tokenizer, so a
/// row cut by an older revision cannot simply be deleted under the current one (the terms it
/// would remove are not those in the index; the old ones would stay, pointing at a row that is
/// gone, which FTS4 reports as corruption). Each revision therefore knows a text that it cuts
/// exactly as the revision before it cut the original (`Revision.previousEquivalent`). For each
/// affected page, the stored text is first replaced, in the content table itself, by that text
/// (carried through every later revision too, as this build cuts with the newest), which this
/// build cuts as the page was cut; the row is then deleted (removing the old terms) and inserted
/// again with its original text, under its docid. Finding the pages reads and inflates every
/// page's text once in SQL (no tokenising, no index writes except for the pages found), against
/// a full re-cut (`SearchSchema.rebuild`, as migrations 7 and 1000 did) that tokenises and
/// writes the whole index again. Everything runs in the open's one transaction, so a crash
/// leaves the store as it was, and the migration runs again at the next open.
enum TokenizerRecut {
    /// What one revision changed, for re-cutting the pages it cuts differently.
    struct Revision: Sendable {
        /// The tokenizer revision.
        var number: Int
        /// A SQL condition on `body` (a page's text) true for every page the revision may cut
        /// differently (and maybe some others, which `previousEquivalent` then leaves alone).
        var candidates: String
        /// A text the revision cuts into the tokens, at the positions, that the revision before
        /// it cut the argument into; the argument itself when both revisions cut it alike.
        var previousEquivalent: @Sendable (String) -> String
    }

    /// The revisions re-cut this way, oldest first; the last is this build's.
    static let revisions: [Revision] = [
        SoftHyphenRecut.revision, ZeroWidthSpaceRecut.revision, LineEndHyphenRecut.revision,
    ]

    /// The temporary table of the pages a re-cut of this open already cut with this build's
    /// tokenizer (a later revision's migration leaves them alone).
    static let recutPages = "search_recut_pages"

    /// Re-cuts the pages revision `number` cuts differently; returns how many there were.
    @discardableResult
    static func run(_ db: Connection, revision number: Int) throws -> Int {
        guard let position = revisions.firstIndex(where: { $0.number == number }) else {
            preconditionFailure("tokenizer revision \(number) is not re-cut by pages")
        }
        let isLatest = position == revisions.count - 1
        defer {
            // The notes are for the migrations of this open only (the whole-index marker is
            // dropped by the last of them, 1009: `ComposedCJKRebuild`).
            if isLatest { try? db.execute("DROP TABLE IF EXISTS temp.\(recutPages)") }
        }
        // A migration of the same open that rebuilt the whole index (7, 1000, 1001 on an older
        // store) cut it with this build's tokenizer already: re-cutting those pages as older rows
        // would take tokens off FTS4's total that were never counted.
        if try hasTemporaryTable(db, SearchSchema.recutMarker) { return 0 }
        let revision = revisions[position]
        let later = revisions[(position + 1)...]
        let alreadyCut: Set<Int64> =
            try hasTemporaryTable(db, recutPages)
            ? Set(try db.rows("SELECT docid FROM temp.\(recutPages)").compactMap { $0.first?.integerValue }) : []
        if !isLatest { try db.execute("CREATE TEMP TABLE IF NOT EXISTS \(recutPages) (docid INTEGER PRIMARY KEY)") }
        let uncompress = PageTextCompression.uncompressName
        let candidates = try db.rows(
            "SELECT docid FROM (SELECT docid, \(uncompress)(c0body) AS body FROM search_text_content LIMIT -1) "
                + "WHERE \(revision.candidates)"
        ).compactMap { $0.first?.integerValue }
        var recut = 0
        for docid in candidates where !alreadyCut.contains(docid) {
            guard
                let body = try db.scalar(
                    "SELECT \(uncompress)(c0body) FROM search_text_content WHERE docid = ?", [.integer(docid)])?
                    .textValue
            else { continue }
            let previous = revision.previousEquivalent(body)
            guard previous != body else { continue }
            let asCut = later.reduce(previous) { text, laterRevision in laterRevision.previousEquivalent(text) }
            try db.execute(
                "UPDATE search_text_content SET c0body = \(PageTextCompression.compressName)(?) WHERE docid = ?",
                [.text(asCut), .integer(docid)])
            try db.execute("DELETE FROM search_text WHERE docid = ?", [.integer(docid)])
            try db.execute("INSERT INTO search_text (docid, body) VALUES (?, ?)", [.integer(docid), .text(body)])
            if !isLatest { try db.execute("INSERT INTO temp.\(recutPages) (docid) VALUES (?)", [.integer(docid)]) }
            recut += 1
        }
        return recut
    }

    /// Whether the connection has the temporary table `name`.
    private static func hasTemporaryTable(_ db: Connection, _ name: String) throws -> Bool {
        try db.scalar("SELECT count(*) FROM sqlite_temp_master WHERE name = ?", [.text(name)])?.integerValue ?? 0 > 0
    }
}
