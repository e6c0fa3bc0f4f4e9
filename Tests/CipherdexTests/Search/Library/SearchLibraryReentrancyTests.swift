import CipherdexExtraction
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Library calls made from the library's own callbacks return instead of waiting for themselves.
final class SearchLibraryReentrancyTests: XCTestCase {
    /// An extractor that waits for the library to be idle (which includes its own job) first.
    private struct WaitingExtractor: TextExtractor {
        let store: Store
        let other: Store
        let seen: Seen
        func extract(data: [UInt8], fileExtension: String, password: String?) throws -> ExtractedDocument {
            // Its own library's worker, not another store's library's.
            seen.value.withLock { $0 = (store.library.isWorkerThread, other.library.isWorkerThread) }
            store.library.waitUntilIdle()
            do { try store.library.waitUntilIndexed() } catch { seen.indexedError.withLock { $0 = error } }
            return ExtractedDocument(title: nil, pages: [ExtractedPage(index: 0, text: "waited zqreentry")])
        }
    }

    /// What the extractor saw of its thread.
    private final class Seen: Sendable {
        let value = Mutex<(own: Bool, other: Bool)?>(nil)
        /// What `waitUntilIndexed()` threw on the worker thread.
        let indexedError = Mutex<(any Error)?>(nil)
    }

    /// Runs `body` on a thread of its own; fails when it has not returned within 20 s.
    private func assertReturns(_ what: String, _ body: @escaping @Sendable () throws -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            do { try body() } catch { XCTFail("\(what): \(error)") }
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "\(what) hung")
    }

    func testACallbackThatWaitsForTheLibraryReturns() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        defer {
            store.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        let (other, otherPath) = try SearchLibraryTestSupport.store()
        defer {
            other.close()
            try? FileManager.default.removeItem(atPath: otherPath)
        }
        let seen = Seen()
        XCTAssertFalse(store.library.isWorkerThread)
        store.library.configure {
            $0.extractors["wait"] = WaitingExtractor(store: store, other: other, seen: seen)
            $0.passwordProvider = { _ in
                store.library.waitUntilIdle()
                return nil
            }
        }
        assertReturns("an extractor waiting until idle") {
            try store.library.add(data: Data("x".utf8), uid: "a.wait", fileExtension: "wait")
            try store.library.add(data: Data("plain zqtext".utf8), uid: "b.txt", fileExtension: "txt")
            try store.library.waitUntilIndexed()
        }
        XCTAssertEqual(try store.library.search("zqreentry").documents, ["a.wait": [0]])
        let (own, foreign) = try XCTUnwrap(seen.value.withLock { $0 })
        XCTAssertTrue(own)
        XCTAssertFalse(foreign, "another store's library waits for its own work")
        // Never a silent success: what it would wait for includes its own thread's work
        // (consumer audit 27: it returned at once, as if everything were indexed).
        let error = seen.indexedError.withLock { $0 }
        XCTAssertEqual(error as? SearchError, .calledFromLibraryThread(operation: "waitUntilIndexed()"))
    }

    /// An extractor that closes its store.
    private struct ClosingExtractor: TextExtractor {
        let store: Store
        func extract(data: [UInt8], fileExtension: String, password: String?) throws -> ExtractedDocument {
            store.close()
            return ExtractedDocument(title: nil, pages: [ExtractedPage(index: 0, text: "closing")])
        }
    }

    /// A store closed while `waitUntilIndexed()` waits (here from inside an extractor, which
    /// drops the documents still queued) makes it throw `StoreError.closed`, and so it does once
    /// the store is closed (consumer audit 27: both returned success, the queued documents never
    /// indexed).
    func testWaitingForTheIndexOfAClosedStoreThrowsClosed() async throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        store.library.configure {
            $0.extractors["close"] = ClosingExtractor(store: store)
            $0.workerCount = 1
        }
        assertReturns("waiting while an extractor closes the store") {
            try store.library.add(data: Data("x".utf8), uid: "a.close", fileExtension: "close")
            try store.library.add(data: Data("never zqindexed".utf8), uid: "b.txt", fileExtension: "txt")
            XCTAssertThrowsError(try store.library.waitUntilIndexed()) { error in
                XCTAssertEqual(error as? StoreError, .closed)
            }
        }
        XCTAssertThrowsError(try store.library.waitUntilIndexed()) { XCTAssertEqual($0 as? StoreError, .closed) }
        do {
            try await store.library.waitUntilIndexedAsync()
            XCTFail("waitUntilIndexedAsync on a closed store must throw")
        } catch {
            XCTAssertEqual(error as? StoreError, .closed)
        }
        // Waiting until idle only waits: a closed store's library is idle.
        store.library.waitUntilIdle()
        try await store.library.waitUntilIdleAsync()
    }

    /// Inside `store.transaction`, `waitUntilIdle()` returns at once (as documented) and
    /// `waitUntilIndexed()` throws `insideTransaction`: what it waits for could not be indexed
    /// before the transaction ends (consumer audit: it returned as if the page were indexed).
    func testWaitingForTheIndexInsideATransactionSaysItCannot() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try store.transaction { _ in
            try store.library.add(data: Data("inside zqtx".utf8), uid: "t.txt", fileExtension: "txt")
            store.library.waitUntilIdle()
            XCTAssertThrowsError(try store.library.waitUntilIndexed()) { error in
                guard case .insideTransaction = error as? StoreError else { return XCTFail("\(error)") }
            }
        }
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.search("zqtx").documents, ["t.txt": [0]])
    }

    /// Inside `store.read` too: with the only reader slot held by the waiting thread, the worker
    /// could never get one (concurrency audit: `waitUntilIndexed()` there never returned).
    func testWaitingForTheIndexInsideAReadSaysItCannot() throws {
        let path = TestSupport.temporaryPath()
        var configuration = TestSupport.configuration(path, key: TestSupport.rawKey(7))
        configuration.maximumReaders = 1
        let store = try Store.open(configuration)
        defer { store.close() }
        assertReturns("waiting inside a read") {
            try store.read { (_: StoreSnapshot) in
                try store.library.add(data: Data("inside zqread".utf8), uid: "r.txt", fileExtension: "txt")
                store.library.waitUntilIdle()
                XCTAssertThrowsError(try store.library.waitUntilIndexed()) { error in
                    guard case .insideTransaction = error as? StoreError else { return XCTFail("\(error)") }
                    // There is no transaction: the message names the read (consumer audit 27).
                    let message = (error as? StoreError)?.errorDescription ?? ""
                    XCTAssertTrue(message.contains("a read of this store"), message)
                }
            }
        }
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.search("zqread").documents, ["r.txt": [0]])
    }

    func testConfigureMayCallTheLibraryFromItsClosure() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        defer {
            store.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        assertReturns("configure calling the library") {
            store.library.configure { configuration in
                _ = store.library.isIndexing
                _ = try? store.library.statuses()
                store.library.configure { $0.workerCount = 1 }
                configuration.workerCount = 2
            }
        }
        var workers = 0
        store.library.configure { workers = $0.workerCount }
        XCTAssertEqual(workers, 2, "the outer update's result stands")
    }
}
