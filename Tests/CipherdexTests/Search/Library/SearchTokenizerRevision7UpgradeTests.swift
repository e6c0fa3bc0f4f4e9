import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Revision 7 (search migration 1009): an index holding a page with half-width voiced kana or
/// decomposed Hangul is cut again as a whole at open; one without such a page is left alone.
///
/// No text cut by this build gives the terms an older build gave `ｶﾞｲﾄﾞ` (`カ\u{3099}イ`): the
/// pages are given other terms instead (`TokenizerRecutTestSupport.cut`), standing in for the
/// old cut, which queries in either form did not find either.
final class SearchTokenizerRevision7UpgradeTests: XCTestCase {
    private let halfWidth = "ｶﾞｲﾄﾞ ﾊﾟﾝ"
    private let decomposed = "한국어 문서".decomposedStringWithCanonicalMapping

    private func search(_ store: Store, _ query: String) throws -> [String] {
        try store.library.search(query).documents.keys.sorted()
    }

    private func addText(_ store: Store, _ text: String, uid: String) throws {
        try store.library.add(data: Data(text.utf8), uid: uid, fileExtension: "txt")
        store.library.waitUntilIdle()
    }

    private func reopen(_ path: String) throws -> Store {
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
    }

    /// The root page of the page text table: a whole re-cut builds a new table.
    private func textTableRoot(_ store: Store) throws -> Int64? {
        try store.read {
            try $0.scalar("SELECT rootpage FROM sqlite_master WHERE name = 'search_text_content'")?.integerValue
        }
    }

    /// Every page's length in `search_page_lengths` is FTS4's (`PageLengths`).
    private func assertPageLengthsInStep(_ store: Store, file: StaticString = #filePath, line: UInt = #line) throws {
        try store.read { db in
            var docsize: [Int64: Int] = [:]
            for row in try db.rows("SELECT docid, size FROM search_text_docsize") {
                let size = SearchLibraryTestSupport.varints(row[1].blobValue ?? [])[0]
                if let docid = row[0].integerValue, size != 0 { docsize[docid] = size }
            }
            var chunks: [Int64: Int] = [:]
            for row in try db.rows("SELECT chunk, lengths FROM search_page_lengths") {
                let raw = row[1].blobValue ?? []
                for slot in 0..<(raw.count / 4) {
                    let value = raw[(slot * 4)..<(slot * 4 + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
                    if value != 0, let chunk = row[0].integerValue { chunks[chunk << 8 | Int64(slot)] = value }
                }
            }
            XCTAssertFalse(docsize.isEmpty, file: file, line: line)
            XCTAssertEqual(chunks, docsize, file: file, line: line)
        }
    }

    func testAnIndexWithHalfWidthKanaOrDecomposedHangulIsCutAgainAtOpen() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        try addText(store, halfWidth, uid: "half.txt")
        try addText(store, "ガイド", uid: "full.txt")
        try addText(store, decomposed, uid: "nfd.txt")
        try store.write { db in
            try db.transaction {
                try TokenizerRecutTestSupport.cut(db, uid: "half.txt", text: halfWidth, as: "カイト ハン")
                try TokenizerRecutTestSupport.cut(db, uid: "nfd.txt", text: decomposed, as: "\u{1161}\u{11AB}")
                try db.execute("DELETE FROM cipherdex_schema WHERE version = 1009")
            }
        }
        XCTAssertEqual(try search(store, "ガイド"), ["full.txt"])
        XCTAssertEqual(try search(store, "한국어"), [])
        let root = try textTableRoot(store)
        store.close()

        let reopened = try reopen(path)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
        XCTAssertNotEqual(try textTableRoot(reopened), root)
        XCTAssertEqual(try search(reopened, "ガイド"), ["full.txt", "half.txt"])
        XCTAssertEqual(try search(reopened, "ｶﾞｲﾄﾞ"), ["full.txt", "half.txt"])
        XCTAssertEqual(try search(reopened, "ガ"), ["full.txt", "half.txt"])
        XCTAssertEqual(try search(reopened, "パン"), ["half.txt"])
        XCTAssertEqual(try search(reopened, "한국어"), ["nfd.txt"])
        XCTAssertEqual(try search(reopened, "한국어".decomposedStringWithCanonicalMapping), ["nfd.txt"])
        XCTAssertEqual(try search(reopened, "문서"), ["nfd.txt"])
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
        try assertPageLengthsInStep(reopened)
        // The notes of the open are gone with it.
        let temporary = try reopened.write { db in
            try db.rows("SELECT name FROM sqlite_temp_master").compactMap { $0.first?.textValue }
        }
        XCTAssertFalse(temporary.contains(SearchSchema.recutMarker))
        XCTAssertFalse(temporary.contains(TokenizerRecut.recutPages))

        // A page written now in either form finds the other; removing pages leaves no terms.
        try addText(reopened, "한국어".precomposedStringWithCanonicalMapping, uid: "nfc.txt")
        XCTAssertEqual(try search(reopened, "한국어".decomposedStringWithCanonicalMapping), ["nfc.txt", "nfd.txt"])
        for uid in ["half.txt", "full.txt", "nfd.txt", "nfc.txt"] { try reopened.library.remove(uid: uid) }
        reopened.library.waitUntilIdle()
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
        XCTAssertEqual(try TokenizerRecutTestSupport.terms(reopened), [])
    }

    func testAStoreWithoutSuchTextIsNotCutAgain() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        try addText(store, "ガイド 한국어 plain words ｶ", uid: "plain.txt")
        try store.write { try $0.execute("DELETE FROM cipherdex_schema WHERE version = 1009") }
        let root = try textTableRoot(store)
        store.close()

        let reopened = try reopen(path)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
        XCTAssertEqual(try textTableRoot(reopened), root)
        XCTAssertEqual(try search(reopened, "ガイド"), ["plain.txt"])
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
    }

    /// A whole re-cut earlier in the same open (here migration 1001) leaves nothing for 1009,
    /// which still drops the open's note of it.
    func testARebuildInTheSameOpenLeavesNothingForRevision7() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        try addText(store, halfWidth, uid: "half.txt")
        try store.write { db in
            try db.transaction {
                try TokenizerRecutTestSupport.cut(db, uid: "half.txt", text: halfWidth, as: "カイト ハン")
                try db.execute("DELETE FROM cipherdex_schema WHERE version IN (1001, 1009)")
            }
        }
        store.close()
        let reopened = try reopen(path)
        defer { reopened.close() }
        XCTAssertEqual(try search(reopened, "ガイド"), ["half.txt"])
        XCTAssertEqual(try search(reopened, "ﾊﾟﾝ"), ["half.txt"])
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
        try assertPageLengthsInStep(reopened)
        let temporary = try reopened.write { db in
            try db.rows("SELECT name FROM sqlite_temp_master").compactMap { $0.first?.textValue }
        }
        XCTAssertFalse(temporary.contains(SearchSchema.recutMarker))
    }

    /// A store that also needs revisions 4–6 gets them page by page, then the whole re-cut of
    /// revision 7, in one open; the index is whole afterwards.
    func testAStoreBeforeRevision4IsCutToRevision7InOneOpen() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        let both = "ｶﾞｲﾄﾞ desoxy\u{AD}\ncorticostérone com-\nputer"
        try addText(store, both, uid: "both.txt")
        try addText(store, "plain words", uid: "plain.txt")
        try store.write { db in
            try db.transaction {
                let revision3 = LineEndHyphenRecut.revision5Equivalent(
                    ZeroWidthSpaceRecut.revision4Equivalent(SoftHyphenRecut.revision3Equivalent(both)))
                try TokenizerRecutTestSupport.cut(db, uid: "both.txt", text: both, as: revision3)
                try db.execute("DELETE FROM cipherdex_schema WHERE version >= 1006")
            }
        }
        store.close()
        let reopened = try reopen(path)
        defer { reopened.close() }
        XCTAssertEqual(try search(reopened, "desoxycorticostérone"), ["both.txt"])
        XCTAssertEqual(try search(reopened, "computer"), ["both.txt"])
        XCTAssertEqual(try search(reopened, "ガイド"), ["both.txt"])
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
        try assertPageLengthsInStep(reopened)
        try reopened.library.remove(uid: "both.txt")
        reopened.library.waitUntilIdle()
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
        XCTAssertEqual(try TokenizerRecutTestSupport.terms(reopened), ["plain", "words"])
    }
}
