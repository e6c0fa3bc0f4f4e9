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
}
