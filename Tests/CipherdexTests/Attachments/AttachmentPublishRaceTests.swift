import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// A reader that meets an attachment between its commit and its `publish` (the file still in
/// `staging/`) finds it even when the rename into `attachments/` happens while it opens it.
final class AttachmentPublishRaceTests: XCTestCase {
    func testAFileRenamedIntoPlaceWhileItIsOpenedIsFound() throws {
        for key in [TestSupport.rawKey(3), nil] {
            let path = TestSupport.temporaryPath()
            let store = try Store.open(TestSupport.configuration(path, key: key))
            defer { store.close() }
            let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let token = try store.addAttachment(content)
            let published = path + "/attachments/" + token.id
            let staged = path + "/staging/" + token.id
            // The state between the commit and `publish`: the row is there, the file in staging.
            XCTAssertEqual(rename(published, staged), 0)
            var chosen = ""
            let reader = try store.openAttachment(token.id) { path in
                chosen = path
                XCTAssertEqual(rename(staged, published), 0, "publish runs now")
            }
            XCTAssertEqual(chosen, staged)
            XCTAssertEqual(try reader.readAll(), content)
        }
    }

    func testARemovalRightAfterTheCommitWaitsForThePublish() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(3)))
        defer { store.close() }
        let content = Data(repeating: 7, count: 100_000)
        let staged = try store.attachmentStorage.stage { sink in try content.withUnsafeBytes { try sink($0) } }
        let removal = DispatchSemaphore(value: 0)
        let outcome = ResultBox<Bool>()
        let token = try store.commitStaged(staged, contentType: nil, metadata: [:]) {
            // Another thread removes the attachment the moment its row is committed.
            Thread {
                outcome.result = Result { try store.removeAttachment(staged.id) }
                removal.signal()
            }.start()
            XCTAssertEqual(removal.wait(timeout: .now() + 0.3), .timedOut, "the removal waits for the writer")
        }
        XCTAssertEqual(token.id, staged.id)
        XCTAssertEqual(removal.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try outcome.result?.get(), true)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: path + "/attachments/" + staged.id), "no file left behind")
        XCTAssertEqual(try store.verify().problems, [])
    }

    func testAPublishThatFailsAfterTheCommitStillAcknowledgesTheAttachment() throws {
        let path = TestSupport.temporaryPath()
        var store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(3)))
        let content = Data(repeating: 9, count: 100_000)
        let staged = try store.attachmentStorage.stage { sink in try content.withUnsafeBytes { try sink($0) } }
        let stagedPath = path + "/staging/" + staged.id
        let aside = TestSupport.temporaryPath("aside")
        // The rename into `attachments/` fails (as on a full disk): the row is committed and the
        // file durable in `staging/`, so the attachment is stored and must be acknowledged.
        let token = try store.commitStaged(staged, contentType: "text/plain", metadata: [:]) {
            XCTAssertEqual(rename(stagedPath, aside), 0)
        }
        XCTAssertEqual(rename(aside, stagedPath), 0)
        XCTAssertEqual(token.id, staged.id)
        XCTAssertEqual(try store.attachment(token.id).readAll(), content, "read from staging/")
        store.close()
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(3)))
        defer { store.close() }
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: path + "/attachments/" + token.id), "published by the open")
        XCTAssertEqual(try store.attachment(token.id).readAll(), content)
        XCTAssertEqual(try store.verify().problems, [])
    }
}
