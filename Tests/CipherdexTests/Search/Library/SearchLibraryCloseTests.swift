import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `Store.close()` right after `add`: every document whose `add` returned is indexed before the
/// store closes (none is dropped from the queue), and `closeAndDelete()` finishes nothing.
final class SearchLibraryCloseTests: XCTestCase {
    func testCloseFinishesEveryQueuedDocument() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        let count = 24
        for number in 0..<count {
            try store.library.add(
                data: Data("queued document number \(number) mentions quetzal".utf8), uid: "d\(number).txt",
                fileExtension: "txt")
        }
        let folder = TestSupport.temporaryPath("files")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for number in 0..<count {
            try "file \(number) mentions quetzal".write(
                toFile: folder + "/f\(number).txt", atomically: true, encoding: .utf8)
            try store.library.add(fileAt: folder + "/f\(number).txt")
        }
        store.close()
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        defer { reopened.close() }
        XCTAssertEqual(try reopened.library.search("quetzal").documents.count, 2 * count)
    }

    func testCloseAndDeleteDoesNotWaitForTheQueue() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        store.library.pause()
        for number in 0..<8 {
            try store.library.add(data: Data("doc \(number)".utf8), uid: "d\(number).txt", fileExtension: "txt")
        }
        store.library.resume()
        try store.closeAndDelete()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/metadata.json"))
    }
}
