import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Revision 6 (search migration 1008): the pages of an index cut with revision 5 that hold a
/// hyphen directly before a line break are cut again at open, the others left as they are; the
/// index stays whole (FTS4's own check passes, and removing the pages leaves none of their terms).
final class SearchTokenizerRevision6UpgradeTests: XCTestCase {
    private let broken = "the log-\nlikelihood of com-\r\nputer models"
    private let plain = "plain log-likelihood words -\n"

    private func search(_ store: Store, _ query: String) throws -> [String] {
        try store.library.search(query).documents.keys.sorted()
    }

    private func addText(_ store: Store, _ text: String, uid: String) throws {
        try store.library.add(data: Data(text.utf8), uid: uid, fileExtension: "txt")
        store.library.waitUntilIdle()
    }

    func testAnIndexBuiltBeforeRevision6IsCutAgainAtOpen() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        try addText(store, broken, uid: "broken.txt")
        try addText(store, plain, uid: "plain.txt")
        try store.write { db in
            try db.transaction {
                try TokenizerRecutTestSupport.cut(
                    db, uid: "broken.txt", text: broken, as: LineEndHyphenRecut.revision5Equivalent(broken))
                try db.execute("DELETE FROM cipherdex_schema WHERE version = 1008")
            }
        }
        XCTAssertEqual(try search(store, "loglikelihood"), [])
        XCTAssertEqual(try search(store, "computer"), [])
        store.close()

        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        defer { reopened.close() }
        XCTAssertEqual(try reopened.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
        XCTAssertEqual(try search(reopened, "loglikelihood"), ["broken.txt"])
        XCTAssertEqual(try search(reopened, "computer"), ["broken.txt"])
        XCTAssertEqual(try search(reopened, "log-likelihood"), ["broken.txt", "plain.txt"])
        XCTAssertEqual(try search(reopened, "likelihood"), ["plain.txt"])
        XCTAssertEqual(try search(reopened, "\"the loglikelihood of\""), ["broken.txt"])
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)

        // Removing the re-cut page leaves none of its terms; indexing it again is whole too.
        try reopened.library.remove(uid: "broken.txt")
        reopened.library.waitUntilIdle()
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
        XCTAssertEqual(try TokenizerRecutTestSupport.terms(reopened), Set(SearchTestSupport.texts(plain)).sorted())
        try addText(reopened, broken, uid: "broken.txt")
        XCTAssertEqual(try search(reopened, "computer"), ["broken.txt"])
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
    }

    /// A store cut with revision 4 gets migrations 1007 and 1008 in one open: a page that both
    /// revisions cut differently is cut again once, by 1007, which 1008 then leaves alone.
    func testAnIndexBuiltBeforeRevision5IsCutToRevision6InOneOpen() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        let both = "ออก\u{200B}แบบ com-\nputer"
        try addText(store, both, uid: "both.txt")
        try addText(store, broken, uid: "broken.txt")
        try store.write { db in
            try db.transaction {
                for (uid, text) in [("both.txt", both), ("broken.txt", broken)] {
                    let revision4 = LineEndHyphenRecut.revision5Equivalent(
                        ZeroWidthSpaceRecut.revision4Equivalent(text))
                    try TokenizerRecutTestSupport.cut(db, uid: uid, text: text, as: revision4)
                }
                try db.execute("DELETE FROM cipherdex_schema WHERE version IN (1007, 1008)")
            }
        }
        store.close()
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        defer { reopened.close() }
        XCTAssertEqual(try search(reopened, "ออกแบบ"), ["both.txt"])
        XCTAssertEqual(try search(reopened, "computer"), ["both.txt", "broken.txt"])
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
        for uid in ["both.txt", "broken.txt"] { try reopened.library.remove(uid: uid) }
        reopened.library.waitUntilIdle()
        try TokenizerRecutTestSupport.assertIndexWhole(reopened)
        XCTAssertEqual(try TokenizerRecutTestSupport.terms(reopened), [])
    }
}
