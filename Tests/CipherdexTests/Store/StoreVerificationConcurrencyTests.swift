import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `verify()` while other threads write: an attachment added or removed after verification read
/// its rows is no damage, while a file that really has no row still is.
final class StoreVerificationConcurrencyTests: XCTestCase {
    private var path = ""
    private var store: Store!

    override func setUpWithError() throws {
        path = TestSupport.temporaryPath()
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(4)))
    }

    override func tearDown() {
        store?.close()
    }

    func testAttachmentsAddedAndRemovedAfterTheSnapshotAreNotProblems() throws {
        let removed = try store.addAttachment(Data(repeating: 1, count: 100_000))
        let kept = try store.addAttachment(Data(repeating: 2, count: 10))
        var added: AttachmentToken?
        let result = try store.verifyAttachments {
            // What other threads could do between the snapshot and the file checks.
            XCTAssertTrue(try self.store.removeAttachment(removed.id))
            added = try self.store.addAttachment(Data(repeating: 3, count: 70_000))
            _ = try self.store.transaction { tx in try tx.addAttachment(Data(repeating: 4, count: 5)) }
        }
        XCTAssertEqual(result.problems, [])
        XCTAssertEqual(result.checked, 1, "\(kept.id) was checked; \(removed.id) was gone")
        XCTAssertNotNil(added)
        XCTAssertEqual(try store.verify().problems, [])
        XCTAssertEqual(try store.verify().attachmentsChecked, 3)
    }

    func testAFileWithoutARowIsStillReported() throws {
        let token = try store.addAttachment(Data(repeating: 5, count: 1000))
        let stray = String(repeating: "ab", count: 16)
        try FileManager.default.copyItem(
            atPath: path + "/attachments/" + token.id, toPath: path + "/attachments/" + stray)
        let result = try store.verifyAttachments { _ = try self.store.addAttachment(Data(repeating: 6, count: 7)) }
        XCTAssertEqual(result.problems, ["attachment file \(stray) is not recorded in the database"])
    }
}
