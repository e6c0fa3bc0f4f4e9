import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Revision 5 (search migration 1007): the pages of an index cut with revision 4 that hold a
/// zero-width space or a decomposed AM are cut again at open, the others left as they are; the
/// index stays whole (FTS4's own check passes, and removing the pages leaves none of their terms).
final class SearchTokenizerRevision5UpgradeTests: XCTestCase {
    private let zeroWidth = "นโยบาย\u{200B}สาธารณะ ออก\u{200B}แบบ 東京\u{200B}都 a\u{200B}b"
    private let decomposed = "ก\u{0E4D}\u{0E32}หนด ລ\u{0ECD}\u{0EB2}"
    private let composed = "กำหนด ລຳ"
    private let plain = "plain words ไทย"

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

    func testAnIndexBuiltBeforeRevision5IsCutAgainAtOpen() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        try addText(store, zeroWidth, uid: "zw.txt")
        try addText(store, decomposed, uid: "dec.txt")
        try addText(store, composed, uid: "comp.txt")
        try addText(store, plain, uid: "plain.txt")
        // Cut the two pages as revision 4 did.
        try store.write { db in
            try db.transaction {
                for (uid, text) in [("zw.txt", zeroWidth), ("dec.txt", decomposed)] {
                    try TokenizerRecutTestSupport.cut(
                        db, uid: uid, text: text, as: ZeroWidthSpaceRecut.revision4Equivalent(text))
                }
                try db.execute("DELETE FROM cipherdex_schema WHERE version = 1007")
            }
        }
        XCTAssertEqual(try search(store, "ออกแบบ"), [])
        XCTAssertEqual(try search(store, "กำหนด"), ["comp.txt"])
        store.close()

        let reopened = try reopen(path)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
        for query in ["ออกแบบ", "นโยบายสาธารณะ", "京都", "ออก\u{200B}แบบ"] {
            XCTAssertEqual(try search(reopened, query), ["zw.txt"], query)
        }
        XCTAssertEqual(try search(reopened, "ab"), [])
        for query in ["กำหนด", "ก\u{0E4D}\u{0E32}หนด", "กำ", "ก\u{0E4D}\u{0E32}", "ລຳ", "ລ\u{0ECD}\u{0EB2}", "ຳ"] {
            XCTAssertEqual(try search(reopened, query), ["comp.txt", "dec.txt"], query)
        }
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)

        // Removing the re-cut pages leaves none of their terms; indexing them again is whole too.
        for uid in ["zw.txt", "dec.txt"] { try reopened.library.remove(uid: uid) }
        reopened.library.waitUntilIdle()
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
        let kept = Set(SearchTestSupport.texts(composed) + SearchTestSupport.texts(plain)).sorted()
        XCTAssertEqual(try TokenizerRecutTestSupport.terms(reopened), kept)
        try addText(reopened, zeroWidth, uid: "zw.txt")
        try addText(reopened, decomposed, uid: "dec.txt")
        XCTAssertEqual(try search(reopened, "ออกแบบ"), ["zw.txt"])
        XCTAssertEqual(try search(reopened, "ก\u{0E4D}\u{0E32}หนด"), ["comp.txt", "dec.txt"])
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
    }

    /// A store cut with revision 3 gets migrations 1006 and 1007 in one open: a page that both
    /// revisions cut differently is cut again once, by 1006, which 1007 then leaves alone.
    func testAnIndexBuiltBeforeRevision4IsCutToRevision5InOneOpen() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        let both = "desoxy\u{AD}\ncorticostérone ออก\u{200B}แบบ ก\u{0E4D}\u{0E32}หนด"
        try addText(store, both, uid: "both.txt")
        try addText(store, zeroWidth, uid: "zw.txt")
        try addText(store, plain, uid: "plain.txt")
        try store.write { db in
            try db.transaction {
                for (uid, text) in [("both.txt", both), ("zw.txt", zeroWidth)] {
                    let revision3 = ZeroWidthSpaceRecut.revision4Equivalent(SoftHyphenRecut.revision3Equivalent(text))
                    try TokenizerRecutTestSupport.cut(db, uid: uid, text: text, as: revision3)
                }
                try db.execute("DELETE FROM cipherdex_schema WHERE version IN (1006, 1007)")
            }
        }
        XCTAssertEqual(try search(store, "desoxycorticostérone"), [])
        store.close()

        let reopened = try reopen(path)
        defer { reopened.close() }
        XCTAssertEqual(try search(reopened, "desoxycorticostérone"), ["both.txt"])
        XCTAssertEqual(try search(reopened, "ออกแบบ"), ["both.txt", "zw.txt"])
        XCTAssertEqual(try search(reopened, "กำหนด"), ["both.txt"])
        XCTAssertEqual(try search(reopened, "corticostérone"), [])
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
        for uid in ["both.txt", "zw.txt"] { try reopened.library.remove(uid: uid) }
        reopened.library.waitUntilIdle()
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
        XCTAssertEqual(try TokenizerRecutTestSupport.terms(reopened), Set(SearchTestSupport.texts(plain)).sorted())
        // The notes of the open are gone with it.
        let temporary = try reopened.read { db in
            try db.rows("SELECT name FROM sqlite_temp_master").compactMap { $0.first?.textValue }
        }
        XCTAssertFalse(temporary.contains(TokenizerRecut.recutPages))
        XCTAssertFalse(temporary.contains(SearchSchema.recutMarker))
    }

    /// A store that still needs a whole re-cut (here migration 1001) gets it with revision 5 in
    /// the same open as migrations 1006 and 1007, which then have nothing to do.
    func testARebuildInTheSameOpenLeavesNothingForRevision5() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        try addText(store, zeroWidth, uid: "zw.txt")
        try addText(store, decomposed + " co\u{AD}\nenzyme", uid: "dec.txt")
        try store.write { db in
            try db.execute("DELETE FROM cipherdex_schema WHERE version IN (1001, 1006, 1007)")
        }
        store.close()
        let reopened = try reopen(path)
        defer { reopened.close() }
        XCTAssertEqual(try search(reopened, "ออกแบบ"), ["zw.txt"])
        XCTAssertEqual(try search(reopened, "กำหนด"), ["dec.txt"])
        XCTAssertEqual(try search(reopened, "coenzyme"), ["dec.txt"])
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
    }

    /// Only pages that revision 5 cuts differently are candidates: a composed AM alone, or text
    /// without U+200B and NIKHAHIT, is its own revision-4 equivalent (left alone).
    func testOnlyPagesCutDifferentlyAreCutAgain() {
        for text in [composed, plain, "ก\u{0E4D}", "ก\u{0E4D}\u{2060}\u{0E32}", ""] {
            XCTAssertEqual(ZeroWidthSpaceRecut.revision4Equivalent(text), text)
        }
        XCTAssertEqual(
            ZeroWidthSpaceRecut.revision4Equivalent("a\u{200B}ก\u{0E4D}\u{0E32}"), "a|ก\u{0E4D}\u{2060}\u{0E32}")
        // Revision 5 cuts the equivalent as revision 4 cut the original (where U+200B and a
        // decomposed AM were plain separators and two characters).
        XCTAssertEqual(
            SearchTestSupport.texts(ZeroWidthSpaceRecut.revision4Equivalent("ออก\u{200B}แบบ")),
            SearchTestSupport.texts("ออก。แบบ"))
        XCTAssertEqual(
            SearchTestSupport.texts(ZeroWidthSpaceRecut.revision4Equivalent("ก\u{0E4D}\u{0E32}ห")),
            ["ก\u{0E4D}", "\u{0E4D}\u{0E32}", "\u{0E32}ห"])
    }
}
