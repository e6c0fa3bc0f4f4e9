import Foundation
import XCTest

@testable import Cipherdex

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
}
