import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Tokenizer revision 2 on real indexes: what a reader sees is found, and an index built before
/// the revision is cut again when the store opens.
final class SearchTokenizerRevisionTests: XCTestCase {
    private func search(_ store: Store, _ query: String, exactWords: Bool = false) throws -> [String] {
        var options = SearchOptions()
        options.exactWordsOnly = exactWords
        return try store.library.search(query, options: options).documents.keys.sorted()
    }

    private func addText(_ store: Store, _ text: String, uid: String) throws {
        try store.library.add(data: Data(text.utf8), uid: uid, fileExtension: "txt")
        store.library.waitUntilIdle()
    }

    func testWhatAReaderSeesIsFound() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try addText(store, "The mother’s notes on al-Bukhalā’i.", uid: "latin.txt")
        try addText(store, "私はそれを知っ\nています。環境が\r\n大切です", uid: "ja.txt")
        try addText(store, "ภาษาไทย เป็นภาษาราชการ", uid: "th.txt")
        try addText(store, "این آرگومان\u{200C}ها هستند", uid: "fa.txt")
        XCTAssertEqual(try search(store, "mothers", exactWords: true), [])
        XCTAssertEqual(try search(store, "mother", exactWords: true), ["latin.txt"])
        XCTAssertEqual(try search(store, "Bukhalā", exactWords: true), ["latin.txt"])
        XCTAssertEqual(try search(store, "mother's"), ["latin.txt"])
        XCTAssertEqual(try search(store, "知ってい"), ["ja.txt"])
        XCTAssertEqual(try search(store, "環境が大切"), ["ja.txt"])
        XCTAssertEqual(try search(store, "ภาษา"), ["th.txt"])
        XCTAssertEqual(try search(store, "ราชการ"), ["th.txt"])
        XCTAssertEqual(try search(store, "ไทยเป็น"), ["th.txt"])
        XCTAssertEqual(try search(store, "آرگومانها"), ["fa.txt"])
        XCTAssertEqual(try search(store, "آرگومان\u{200C}ها"), ["fa.txt"])
        // Previews mark each bigram (as FTS offsets() would), across the line break, which the
        // preview shows as a space.
        let preview = try XCTUnwrap(store.library.search("知ってい").previews.first)
        let marked = preview.matchRanges.map { SearchLibraryTestSupport.substring(preview.preview, $0) }
        XCTAssertEqual(marked, ["知っ", "っ て", "てい"])
    }

    func testAnIndexBuiltBeforeTheRevisionIsCutAgainAtOpen() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        try addText(store, "the mother’s notes", uid: "notes.txt")
        // Empty the FTS index itself (its content stays), as if it had been cut by other rules,
        // and mark the store as not yet migrated to revision 2.
        try store.write { db in
            try db.execute("DELETE FROM search_text_segdir")
            try db.execute("DELETE FROM search_text_segments")
            try db.execute("DELETE FROM cipherdex_schema WHERE version >= 7")
        }
        XCTAssertEqual(try search(store, "mother"), [])
        store.close()
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        defer { reopened.close() }
        XCTAssertEqual(try search(reopened, "mother", exactWords: true), ["notes.txt"])
        XCTAssertEqual(try reopened.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
    }

    /// Revision 3 (search migration 1000): an index cut with revision 2, in which a bidi run's end split
    /// `15ב`, is cut again at open.
    func testAnIndexBuiltBeforeRevision3IsCutAgainAtOpen() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        try addText(store, "סעיף \u{202A}(15\u{202C}ב) לחוק", uid: "he.txt")
        XCTAssertEqual(try search(store, "15ב", exactWords: true), ["he.txt"])
        try store.write { db in
            try db.execute("DELETE FROM search_text_segdir")
            try db.execute("DELETE FROM search_text_segments")
            try db.execute("DELETE FROM cipherdex_schema WHERE version = 1000")
        }
        XCTAssertEqual(try search(store, "15ב", exactWords: true), [])
        store.close()
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        defer { reopened.close() }
        XCTAssertEqual(try search(reopened, "15ב", exactWords: true), ["he.txt"])
        XCTAssertEqual(try search(reopened, "*ב", exactWords: true), ["he.txt"])
        XCTAssertEqual(try reopened.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
    }

    /// Revision 4: a word hyphenated at a line end with a soft hyphen is found whole, with the
    /// preview marking both halves.
    func testAWordAcrossASoftHyphenAtALineEndIsFound() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try addText(store, "tumeur (desoxy\u{AD}\ncorticostérone) ;", uid: "shy.txt")
        try addText(store, "co\u{AD}operate", uid: "mid.txt")
        XCTAssertEqual(try search(store, "desoxycorticostérone"), ["shy.txt"])
        XCTAssertEqual(try search(store, "desoxycorticosterone", exactWords: true), ["shy.txt"])
        XCTAssertEqual(try search(store, "desoxy\u{AD}\ncorticostérone", exactWords: true), ["shy.txt"])
        XCTAssertEqual(try search(store, "cooperate"), ["mid.txt"])
        let preview = try XCTUnwrap(store.library.search("desoxycorticosterone").previews.first)
        let marked = preview.matchRanges.map { SearchLibraryTestSupport.substring(preview.preview, $0) }
        XCTAssertEqual(marked.count, 1)
        XCTAssertTrue(marked.first?.hasPrefix("desoxy") == true && marked.first?.hasSuffix("corticostérone") == true)
    }

    /// Revision 4 (search migration 1006): the pages of an index cut with revision 3 that hold a
    /// soft hyphen at a line end are cut again at open, the others left as they are; the index
    /// stays whole (removing the page afterwards leaves none of its terms).
    func testAnIndexBuiltBeforeRevision4IsCutAgainAtOpen() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        let shy = "tumeur (desoxy\u{AD}\ncorticostérone) et co\u{AD}\u{AD}\n\nenzyme"
        try addText(store, shy, uid: "shy.txt")
        try addText(store, "desoxy alone", uid: "plain.txt")
        // Cut the soft-hyphen page as revision 3 did: its terms are those of the text without
        // the soft hyphens at line ends, its stored text the original.
        try store.write { db in
            try db.transaction {
                let docid = try XCTUnwrap(
                    db.scalar("SELECT rowid FROM search_pages WHERE uid = 'shy.txt'")?.integerValue)
                try db.execute("DELETE FROM search_text WHERE docid = ?", [.integer(docid)])
                try db.execute(
                    "INSERT INTO search_text (docid, body) VALUES (?, ?)",
                    [.integer(docid), .text(SoftHyphenRecut.revision3Equivalent(shy))])
                try db.execute(
                    "UPDATE search_text_content SET c0body = \(PageTextCompression.compressName)(?) WHERE docid = ?",
                    [.text(shy), .integer(docid)])
                try db.execute("DELETE FROM cipherdex_schema WHERE version = 1006")
            }
        }
        XCTAssertEqual(try search(store, "desoxycorticostérone"), [])
        XCTAssertEqual(try search(store, "corticostérone"), ["shy.txt"])
        store.close()
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        defer { reopened.close() }
        XCTAssertEqual(try reopened.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
        XCTAssertEqual(try search(reopened, "desoxycorticostérone"), ["shy.txt"])
        XCTAssertEqual(try search(reopened, "coenzyme", exactWords: true), ["shy.txt"])
        XCTAssertEqual(try search(reopened, "corticostérone"), [])
        XCTAssertEqual(try search(reopened, "desoxy", exactWords: true), ["plain.txt"])
        try reopened.library.remove(uid: "shy.txt")
        reopened.library.waitUntilIdle()
        let terms = try reopened.read { db in
            try db.rows("SELECT term FROM search_text_terms WHERE col = '*' ORDER BY term").compactMap {
                $0.first?.textValue
            }
        }
        XCTAssertEqual(terms, ["alone", "desoxy"])
        XCTAssertEqual(try search(reopened, "desoxy"), ["plain.txt"])
    }

    /// A store that still needs a whole re-cut (here migration 1001) gets it with revision 4 in
    /// the same open as migration 1006, which then has nothing to do: FTS4's token total stays
    /// the sum of its pages' lengths (the BM25 average).
    func testARebuildInTheSameOpenLeavesNothingForRevision4() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        try addText(store, "tumeur (desoxy\u{AD}\ncorticostérone) et co\u{AD}\nenzyme", uid: "shy.txt")
        try addText(store, "desoxy alone", uid: "plain.txt")
        try store.write { db in try db.execute("DELETE FROM cipherdex_schema WHERE version IN (1001, 1006)") }
        store.close()
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        defer { reopened.close() }
        XCTAssertEqual(try search(reopened, "desoxycorticostérone"), ["shy.txt"])
        let (total, lengths) = try reopened.read { db in
            (
                SearchLibraryTestSupport.varints(
                    try XCTUnwrap(db.scalar("SELECT value FROM search_text_stat WHERE id = 0")?.blobValue))[1],
                try db.rows("SELECT size FROM search_text_docsize").map {
                    SearchLibraryTestSupport.varints($0[0].blobValue ?? [])[0]
                }
                .reduce(0, +)
            )
        }
        XCTAssertEqual(total, lengths)
    }
}

/// A document that failed is retried by the next folder sync, even though its file did not change.
final class SearchFolderRetryTests: XCTestCase {
    func testAFailedDocumentIsRetriedByTheNextSync() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        let folder = TestSupport.temporaryPath("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/big.txt", contents: Data(repeating: 0x61, count: 4096))
        _ = FileManager.default.createFile(atPath: folder + "/ok.txt", contents: Data("fine words".utf8))
        store.library.configure { $0.maximumDocumentSize = 1024 }
        let first = try store.library.sync(folder: folder)
        store.library.waitUntilIdle()
        XCTAssertEqual(first.added.sorted(), ["big.txt", "ok.txt"])
        guard case .failed = try store.library.status(of: "big.txt") else { return XCTFail("big.txt should fail") }
        // What made it fail is gone: the next sync tries it again although the file is the same.
        store.library.configure { $0.maximumDocumentSize = 1 << 20 }
        let second = try store.library.sync(folder: folder)
        store.library.waitUntilIdle()
        XCTAssertEqual(second.retried, ["big.txt"])
        XCTAssertEqual(second.unchanged, ["ok.txt"])
        XCTAssertEqual(try store.library.status(of: "big.txt"), .finished(pageCount: 1))
        let third = try store.library.sync(folder: folder)
        XCTAssertEqual(third.unchanged.sorted(), ["big.txt", "ok.txt"])
        XCTAssertEqual(third.retried, [])
    }
}
