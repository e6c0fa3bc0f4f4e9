import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The index removes a stored copy with its last entry only when the copy is the index's: an
/// attachment the application stored with the same bytes, before or after, stays (review 28,
/// finding 1: `remove` and a re-`add` deleted it).
final class SearchStoredCopyOwnershipTests: XCTestCase {
    private var store: Store!
    private var path = ""

    override func setUpWithError() throws {
        (store, path) = try SearchLibraryTestSupport.store()
    }

    override func tearDown() {
        store?.close()
        try? FileManager.default.removeItem(atPath: path)
    }

    private func index(_ content: Data, uid: String) throws {
        try store.library.add(data: content, uid: uid, fileExtension: "txt")
        try store.library.waitUntilIndexed()
    }

    private func attachmentIDs() throws -> Set<String> {
        Set(try store.read { db in try db.rows("SELECT id FROM attachments").compactMap { $0[0].textValue } })
    }

    /// The application's attachment first, then a document of the same bytes, then its removal.
    func testRemovingADocumentKeepsTheApplicationsEarlierAttachment() throws {
        let content = Data("zqowned application bytes".utf8)
        let token = try store.addAttachment(content, contentType: "text/plain")
        try index(content, uid: "doc.txt")
        try store.library.remove(uid: "doc.txt")
        XCTAssertEqual(try store.attachment(token.id).readAll(), content)
    }

    /// Re-adding the document with other content releases its previous copy: never the
    /// application's.
    func testReplacingADocumentKeepsTheApplicationsAttachment() throws {
        let content = Data("zqowned application bytes two".utf8)
        let token = try store.addAttachment(content)
        try index(content, uid: "doc.txt")
        try index(Data("zqowned other".utf8), uid: "doc.txt")
        XCTAssertEqual(try store.attachment(token.id).readAll(), content)
    }

    /// The document first, then the application's attachment of the same bytes (in a
    /// transaction, and outside one), then the document's removal.
    func testRemovingADocumentKeepsTheApplicationsLaterAttachment() throws {
        let first = Data("zqowned later one".utf8)
        let second = Data("zqowned later two".utf8)
        try index(first, uid: "one.txt")
        try index(second, uid: "two.txt")
        let outside = try store.addAttachment(first)
        let inside = try store.transaction { tx in try tx.addAttachment(second) }
        try store.library.remove(uid: "one.txt")
        try store.library.remove(uid: "two.txt")
        XCTAssertEqual(try store.attachment(outside.id).readAll(), first)
        XCTAssertEqual(try store.attachment(inside.id).readAll(), second)
        XCTAssertEqual(try store.verify().problems, [])
    }

    /// Copies the index stored itself still go with their last entry, shared or not.
    func testTheIndexsOwnCopiesGoWithTheirLastEntry() throws {
        let content = Data("zqowned shared by two entries".utf8)
        let before = try attachmentIDs()
        try index(content, uid: "a.txt")
        try index(content, uid: "b.txt")
        try index(Data("zqowned alone".utf8), uid: "c.txt")
        XCTAssertEqual(try attachmentIDs().subtracting(before).count, 2)
        try store.library.remove(uid: "a.txt")
        XCTAssertEqual(try attachmentIDs().subtracting(before).count, 2)
        try store.library.remove(uid: "b.txt")
        try store.library.remove(uid: "c.txt")
        XCTAssertEqual(try attachmentIDs(), before)
    }

    /// A program without the search feature (the `CipherdexStore` product) adding the bytes of an
    /// indexed document claims the attachment too: the index's removal keeps it (review 28b).
    func testAnAddByAProgramWithoutSearchIsKeptToo() throws {
        let content = Data("zqowned store-only bytes".utf8)
        try index(content, uid: "doc.txt")
        store.close()
        let storeOnly = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)), features: [])
        let token = try storeOnly.addAttachment(content)
        storeOnly.close()
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        store.library.configure { $0.pdfExtraction = .inProcess }
        try store.library.remove(uid: "doc.txt")
        XCTAssertEqual(try store.attachment(token.id).readAll(), content)
    }

    /// Store migration 9 claims the attachments an earlier build's application added (their
    /// metadata is not the index's `{"uid": …}`), so an index entry an earlier build recorded as
    /// owning one no longer removes it; the index's own copies stay unclaimed and go with their
    /// last entry. Removing an attachment forgets its claim.
    func testMigration9ClaimsTheApplicationsEarlierAttachments() throws {
        let mine = Data("zqowned earlier application bytes".utf8)
        let token = try store.addAttachment(mine, metadata: ["label": "mine"])
        try index(mine, uid: "mine.txt")
        try index(Data("zqowned the index's own".utf8), uid: "own.txt")
        try store.write { db in
            // As an earlier build left them: every copy owned, no claims, migration 9 not run.
            try db.execute("UPDATE search_documents SET owns_attachment = 1")
            try db.execute("DELETE FROM attachment_claims")
            try db.execute("DELETE FROM cipherdex_schema WHERE version = 9")
        }
        store.close()
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        store.library.configure { $0.pdfExtraction = .inProcess }
        let before = try attachmentIDs()
        try store.library.remove(uid: "mine.txt")
        try store.library.remove(uid: "own.txt")
        XCTAssertEqual(try store.attachment(token.id).readAll(), mine)
        XCTAssertEqual(try attachmentIDs().count, before.count - 1, "the index's own copy went with its entry")
        XCTAssertTrue(try store.removeAttachment(token.id))
        XCTAssertEqual(try store.read { try $0.scalar("SELECT count(*) FROM attachment_claims")?.integerValue }, 0)
    }
}
