import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `Store.close()` right after `add`: every document whose `add` returned is indexed before the
/// store closes (none is dropped from the queue), and `closeAndDelete()` finishes nothing; what
/// `add(fileAt:)` cannot queue is refused at once, naming the problem.
final class SearchLibraryCloseTests: XCTestCase {
    func testAddOfAFolderOrAMissingFileSaysWhatItIs() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        let folder = TestSupport.temporaryPath("folder.pdf")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertThrowsExactly(
            SearchError.unreadable(path: folder, reason: "a folder, not a file (use sync(folder:))"),
            try store.library.add(fileAt: folder))
        let fifo = folder + "/pipe.txt"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertThrowsError(try store.library.add(fileAt: fifo)) { error in
            XCTAssertTrue("\(error)".contains("not a regular file"), "\(error)")
        }
        XCTAssertThrowsExactly(
            SearchError.unreadable(path: folder + "/missing.pdf", reason: "no such readable file"),
            try store.library.add(fileAt: folder + "/missing.pdf"))
    }

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

    /// Opens the store at `path` once the store dropped there has closed (nil after 30 s).
    private func openOnceClosed(_ path: String) throws -> Store? {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            do {
                return try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
            } catch StoreError.storeLocked {
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        return nil
    }

    /// A store dropped without `close()` right after `add` still indexes every queued document,
    /// then closes by itself (until then a second open finds it locked).
    func testAStoreDroppedWithQueuedDocumentsIndexesThemThenCloses() throws {
        let path = TestSupport.temporaryPath()
        let count = 12
        for round in 0..<3 {
            do {
                let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
                for number in 0..<count {
                    try store.library.add(
                        data: Data("round \(round) document \(number) mentions quetzal".utf8),
                        uid: "r\(round)-d\(number).txt", fileExtension: "txt")
                }
            }
            let reopened = try openOnceClosed(path)
            let store = try XCTUnwrap(reopened, "the dropped store never closed")
            XCTAssertEqual(try store.library.search("quetzal").documents.count, count * (round + 1))
            store.close()
        }
    }

    /// Paused, the library lets go of the store (a dropped paused store closes, its queue
    /// dropped as a close drops it); resumed, it holds it again until the queue is done.
    func testAStoreDroppedAfterAPauseAndAResumeStillIndexesItsQueue() throws {
        let path = TestSupport.temporaryPath()
        do {
            let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
            store.library.pause()
            for number in 0..<20 {
                try store.library.add(
                    data: Data("paused document \(number) mentions quetzal".utf8), uid: "p\(number).txt",
                    fileExtension: "txt")
            }
            Thread.sleep(forTimeInterval: 0.3)
            store.library.resume()
        }
        let reopened = try openOnceClosed(path)
        let store = try XCTUnwrap(reopened, "the dropped store never closed")
        defer { store.close() }
        XCTAssertEqual(try store.library.search("quetzal").documents.count, 20)
    }

    /// A close inside `store.read` (holding the only reader a worker would need) does not wait
    /// for the queue: it returns, and the store closes when the read ends.
    func testCloseInsideAReadDoesNotWaitForTheQueue() throws {
        let path = TestSupport.temporaryPath()
        var configuration = TestSupport.configuration(path, key: TestSupport.rawKey(7))
        configuration.maximumReaders = 1
        let store = try Store.open(configuration)
        try store.library.add(data: Data("a queued page".utf8), uid: "a.txt", fileExtension: "txt")
        let done = DispatchSemaphore(value: 0)
        Thread {
            _ = try? store.read { (_: StoreSnapshot) in store.close() }
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "close inside a read hung")
        XCTAssertFalse(store.isOpen)
    }

    func testAnAddWhileTheStoreClosesIsRefused() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        store.library.waitForQueuedDocuments()
        XCTAssertThrowsCase(
            "closed", try store.library.add(data: Data("late".utf8), uid: "late.txt", fileExtension: "txt"))
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
