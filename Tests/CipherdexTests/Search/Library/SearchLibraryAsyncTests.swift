import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// An extractor that takes `seconds` per document (to keep the library busy).
private struct SlowExtractor: TextExtractor {
    let seconds: Double

    func extract(data: [UInt8], fileExtension: String, password: String?) throws -> ExtractedDocument {
        Thread.sleep(forTimeInterval: seconds)
        return ExtractedDocument(
            title: nil, pages: [ExtractedPage(index: 0, text: String(decoding: data, as: UTF8.self))])
    }
}

/// An extractor that blocks until its gate opens (to keep the library busy for as long as a
/// test needs), saying when it has started.
private final class GatedExtractor: TextExtractor, Sendable {
    let started = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)

    func extract(data: [UInt8], fileExtension: String, password: String?) throws -> ExtractedDocument {
        started.signal()
        gate.wait()
        return ExtractedDocument(
            title: nil, pages: [ExtractedPage(index: 0, text: String(decoding: data, as: UTF8.self))])
    }
}

/// A flag set on one thread and read on another.
private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}

/// The library's async forms: cancellation returns promptly, and they work from many tasks.
final class SearchLibraryAsyncTests: XCTestCase {
    func testCancelledIdleReturnsAtOnceWhileIndexingGoesOn() async throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        store.library.configure {
            $0.extractors["slow"] = SlowExtractor(seconds: 3)
            $0.workerCount = 1
        }
        try store.library.add(data: Data("slow words".utf8), uid: "a.slow", fileExtension: "slow")
        let waiter = Task { () -> (Bool, Date) in
            do {
                try await store.library.waitUntilIdleAsync()
                return (false, Date())
            } catch {
                return (error is CancellationError, Date())
            }
        }
        let idle = Task { () -> Date in
            await store.library.idle()
            return Date()
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        let cancelledAt = Date()
        waiter.cancel()
        idle.cancel()
        let (threw, returnedAt) = await waiter.value
        let idleReturnedAt = await idle.value
        XCTAssertTrue(threw, "a cancelled waitUntilIdleAsync throws CancellationError")
        XCTAssertLessThan(returnedAt.timeIntervalSince(cancelledAt), 1)
        XCTAssertLessThan(idleReturnedAt.timeIntervalSince(cancelledAt), 1)
        XCTAssertTrue(store.library.isIndexing, "cancelling a wait does not stop the indexing")
        try await store.library.waitUntilIndexedAsync()
        XCTAssertEqual(try store.library.status(of: "a.slow"), .finished(pageCount: 1))
    }

    func testCancelledSyncStopsAndUnqueuesWhatItQueued() async throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        let folder = path + "-docs"
        for folderIndex in 0..<20 {
            let sub = folder + "/f\(folderIndex)"
            try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
            for fileIndex in 0..<50 {
                try Data("note \(fileIndex)".utf8).write(to: URL(fileURLWithPath: sub + "/n\(fileIndex).txt"))
            }
        }
        store.library.pause()
        // Cancelled before it starts: nothing is walked or queued.
        let early = Task { try await store.library.syncAsync(folder: folder) }
        early.cancel()
        do {
            _ = try await early.value
            XCTFail("a sync cancelled before it started must throw")
        } catch is CancellationError {}
        XCTAssertFalse(store.library.isIndexing)
        // Cancelled while it runs: it returns within a second, and if it stopped, it leaves nothing queued.
        let running = Task { try await store.library.syncAsync(folder: folder) }
        try await Task.sleep(nanoseconds: 5_000_000)
        let cancelledAt = Date()
        running.cancel()
        do {
            let summary = try await running.value
            XCTAssertEqual(summary.added.count, 1000)
        } catch is CancellationError {
            XCTAssertFalse(store.library.isIndexing, "a cancelled sync takes its documents off the queue")
        }
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 1)
        store.library.resume()
        let summary = try await store.library.syncAsync(folder: folder)
        XCTAssertEqual(
            summary.added.count + summary.changed.count + summary.unchanged.count + summary.retried.count, 1000)
        try await store.library.waitUntilIndexedAsync()
        XCTAssertEqual(try store.library.statuses().filter { $0.status == .finished(pageCount: 1) }.count, 1000)
        let results = try await store.library.searchAsync("note")
        XCTAssertFalse(results.previews.isEmpty)
    }

    func testAsyncFormsFromManyTasks() async throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    try await store.library.addAsync(
                        data: Data("word\(index) common".utf8), uid: "d\(index).txt", fileExtension: "txt")
                    _ = try await store.library.searchAsync("common")
                }
            }
            try await group.waitForAll()
        }
        try await store.library.waitUntilIndexedAsync()
        let results = try await store.library.searchAsync("common")
        XCTAssertEqual(results.documents.count, 24)
        let word7 = try await store.library.searchAsync("word7")
        XCTAssertEqual(word7.rankedUIDs, ["d7.txt"])
    }

    /// Tasks awaiting the index hold no thread: with many of them waiting while a document is
    /// being extracted, another async call of the store still runs (consumer audit 27: each
    /// waiter blocked a thread of `cipherdex.blocking`, and a `getAsync` behind 20 of them took
    /// 16.7 s). The extraction waits until the read has finished or a 30 s watchdog ran out.
    func testWaitersForTheIndexDoNotHoldUpOtherAsyncCalls() async throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        let extractor = GatedExtractor()
        store.library.configure {
            $0.extractors["gated"] = extractor
            $0.workerCount = 1
        }
        let notes = try store.collection("notes")
        try notes.insert(id: "n", value: .object(["text": .string("kept")]))
        try store.library.add(data: Data("gated zqwords".utf8), uid: "a.gated", fileExtension: "gated")
        await withCheckedContinuation { continuation in
            Thread {
                extractor.started.wait()
                continuation.resume()
            }.start()
        }
        let waiters = (0..<32).map { _ in Task { try await store.library.waitUntilIndexedAsync() } }
        // A thread of its own (the async machinery may be what is held up) opens the gate once
        // the read is done, or when the watchdog runs out.
        let readDone = DispatchSemaphore(value: 0)
        let readWhileIndexing = Flag()
        let watchdog = Thread {
            readWhileIndexing.value.store(readDone.wait(timeout: .now() + 30) == .success, ordering: .releasing)
            XCTAssertTrue(store.library.isIndexing)
            extractor.gate.signal()
        }
        watchdog.start()
        let reader = Task {
            let document = try await notes.getAsync(id: "n")
            readDone.signal()
            return document
        }
        let document = try await reader.value
        XCTAssertNotNil(document)
        for waiter in waiters { try await waiter.value }
        XCTAssertTrue(
            readWhileIndexing.value.load(ordering: .acquiring),
            "getAsync waited for the indexing that the waiters wait for")
        XCTAssertEqual(try store.library.search("zqwords").documents, ["a.gated": [0]])
    }
}
