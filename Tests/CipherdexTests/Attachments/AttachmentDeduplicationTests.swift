import Foundation
import XCTest

@testable import CipherdexStore

/// Deduplication takes an existing attachment of the same content hash only when its bytes are
/// the new content's: whoever holds a key can make two contents hash equal (FORMAT.md 7.4), and
/// an `attach` must never come back as other bytes; a damaged existing file is not reused either.
final class AttachmentDeduplicationTests: XCTestCase {
    private var path = ""
    private var store: Store!

    override func setUpWithError() throws {
        path = TestSupport.temporaryPath()
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
    }

    override func tearDown() {
        store?.close()
    }

    private func hash(of id: String) throws -> [UInt8] {
        try XCTUnwrap(
            try store.read { try $0.scalar("SELECT content_hash FROM attachments WHERE id = ?", [.text(id)]) }?
                .blobValue)
    }

    /// A row whose hash is the new content's but whose file holds other bytes (what a key holder
    /// can make with a colliding content, made here by writing the hash into the row).
    func testAnAttachmentOfTheSameHashButOtherBytesIsNotReused() throws {
        let planted = Data("Pay Mallory 100 EUR".utf8)
        let wanted = Data("Pay Alice 100 EUR on 2026-12-24".utf8)
        let probe = try store.addAttachment(wanted)
        let wantedHash = try hash(of: probe.id)
        XCTAssertTrue(try store.removeAttachment(probe.id))
        let plantedToken = try store.addAttachment(planted)
        try store.write { db in
            try db.execute(
                "UPDATE attachments SET content_hash = ? WHERE id = ?", [.blob(wantedHash), .text(plantedToken.id)])
        }
        let added = try store.addAttachment(wanted, metadata: ["name": "invoice"])
        XCTAssertNotEqual(added.id, plantedToken.id)
        XCTAssertEqual(try store.attachmentData(added.id), wanted)
        XCTAssertEqual(try store.attachmentData(plantedToken.id), planted)
        // Stored apart under the duplicate form of its hash, which never equals a content hash.
        XCTAssertEqual(
            try hash(of: added.id),
            Sodium.ContentHash.duplicateForm(
                of: wantedHash, id: added.id, key: store.attachmentStorage.deduplicationKey))
        // Added again, it is the copy stored apart, not a third one.
        let again = try store.addAttachment(wanted)
        XCTAssertEqual(again.id, added.id)
        XCTAssertEqual(try store.attachmentData(again.id), wanted)
        XCTAssertEqual(try store.attachmentTokens().count, 2)
        XCTAssertTrue(try store.verify().isHealthy)
    }

    /// The same content added again while the stored copy is damaged gets a copy of its own,
    /// whole, rather than the id of the damaged file.
    func testADamagedCopyIsNotReused() throws {
        let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        let first = try store.addAttachment(content)
        let file = path + "/attachments/" + first.id
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[bytes.count / 2] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: file))
        let second = try store.addAttachment(content)
        XCTAssertNotEqual(second.id, first.id)
        XCTAssertEqual(try store.attachmentData(second.id), content)
        XCTAssertEqual(try store.addAttachment(content).id, second.id, "the readable copy is shared")
        // Identical content whole is still stored once.
        let other = Data("some other content".utf8)
        XCTAssertEqual(try store.addAttachment(other).id, try store.addAttachment(other).id)
    }
}
