import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

private struct Patient: Codable, Equatable, Sendable {
    var name: String
    var age: Int
}

/// Async collection forms, `changes()` ending on close, read snapshots and decoded finds.
final class DocumentAsyncTests: XCTestCase {
    private func openStore() throws -> Store {
        try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(2)))
    }

    func testAsyncFormsFromManyTasks() async throws {
        let store = try openStore()
        defer { store.close() }
        let patients = try store.createCollection("patients", indexedFields: ["age"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    try await patients.insertAsync(Patient(name: "p\(index)", age: index), id: "p\(index)")
                    let fetched = try await patients.getAsync(Patient.self, id: "p\(index)")
                    XCTAssertEqual(fetched?.age, index)
                    try await patients.upsertAsync(Patient(name: "p\(index)", age: index + 100), id: "p\(index)")
                    _ = try await patients.findAsync(where: [.greaterThanOrEqual("age", 100)])
                }
            }
            try await group.waitForAll()
        }
        let count = try await patients.countAsync()
        XCTAssertEqual(count, 64)
        let old = try await patients.findAsync(
            Patient.self, where: [.greaterThanOrEqual("age", 160)], orderBy: [.ascending("age")])
        XCTAssertEqual(old.map(\.age), [160, 161, 162, 163])
        let removed = try await patients.removeAsync(id: "p0")
        XCTAssertTrue(removed)
        let gone = try await patients.getAsync(id: "p0")
        XCTAssertNil(gone)
        let firstTwo = try await patients.listAsync(limit: 2)
        XCTAssertEqual(firstTwo.map(\.id), ["p1", "p10"])
        let total = try await store.performTransaction { tx in try tx.collection("patients").count() }
        XCTAssertEqual(total, 63)
    }

    /// Collections, indexes and the search tokenizer changed from async code.
    /// An async write queued behind a transaction of another thread, cancelled while it waits
    /// for the writer, returns `CancellationError` at once and writes nothing (consumer audit:
    /// it waited, then committed and returned success).
    func testAWriteWaitingForTheWriterIsCancelledAtOnce() async throws {
        let store = try openStore()
        defer { store.close() }
        let notes = try store.createCollection("notes")
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            try? store.transaction { _ in
                holding.signal()
                // Released by the test, or after 3 s (so a write that ignores cancellation ends).
                _ = release.wait(timeout: .now() + 3)
            }
        }
        holder.start()
        holding.wait()
        let write = Task { try await notes.insertAsync(id: "queued", value: .object(["a": .number(1)])) }
        try await Task.sleep(nanoseconds: 100_000_000)
        let cancelledAt = Date()
        write.cancel()
        do {
            try await write.value
            XCTFail("the cancelled write returned")
        } catch is CancellationError {}
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 1)
        release.signal()
        // The writer is free again: the next write goes through, and the cancelled one wrote nothing.
        try await notes.insertAsync(id: "after", value: .object(["a": .number(2)]))
        XCTAssertNil(try notes.get(id: "queued"))
        XCTAssertNotNil(try notes.get(id: "after"))
    }

    func testSchemaChangesFromAsyncCode() async throws {
        let store = try openStore()
        defer { store.close() }
        let visits = try await store.createCollectionAsync("visits", indexedFields: ["year"])
        try await visits.insertAsync(id: "v1", value: ["year": 2024, "city": "Oslo"])
        try await visits.createIndexAsync(on: "city")
        XCTAssertEqual(try visits.indexedFields(), ["year", "city"])
        let byCity = try await visits.findAsync(where: [.equal("city", "Oslo")])
        XCTAssertEqual(byCity.map(\.id), ["v1"])
        try await visits.dropIndexAsync(on: "year")
        XCTAssertEqual(try visits.indexedFields(), ["city"])
        let reopened = try await store.createCollectionAsync("visits", ifNotExists: true)
        let count = try await reopened.countAsync()
        XCTAssertEqual(count, 1)
        let dropped = try await store.dropCollectionAsync("visits")
        XCTAssertTrue(dropped)
        XCTAssertEqual(try store.collectionNames(), [])

        try await store.library.setTokenizerAsync(.englishStemming)
        XCTAssertEqual(try store.library.tokenizer(), .englishStemming)
    }

    /// Closing and deleting from async code; a cancelled task still closes the store.
    func testCloseAndDeleteFromAsyncCode() async throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        try await store.collection("notes").insertAsync(id: "a", value: ["n": 1])
        let closing = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await store.closeAsync()
        }
        await closing.value
        XCTAssertFalse(store.isOpen)
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        XCTAssertEqual(try reopened.collection("notes").count(), 1)
        try await reopened.closeAndDeleteAsync()
        XCTAssertFalse(Store.exists(at: path))
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2))).close()
        try await Store.deleteAsync(at: path)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        do {
            try await Store.deleteAsync(at: path)
            XCTFail("nothing to delete")
        } catch {
            XCTAssertEqual((error as? StoreError)?.name, "notAStore", "\(error)")
        }
    }

    func testChangesStreamFinishesWhenTheStoreCloses() async throws {
        let store = try openStore()
        let collection = try store.collection("c")
        let stream = collection.changes()
        let consumer = Task { () -> [String] in
            var ids: [String] = []
            for await change in stream { ids.append(change.id) }
            return ids
        }
        try collection.insert(id: "a", value: ["x": 1])
        try collection.insert(id: "b", value: ["x": 2])
        let closedAt = Date()
        store.close()
        // Without the end on close the loop would wait for ever: a watchdog cancels it after 5 s.
        let watchdog = Task {
            try? await Task.sleep(nanoseconds: 5_000_000_000)
            consumer.cancel()
        }
        let ids = await consumer.value
        watchdog.cancel()
        XCTAssertLessThan(Date().timeIntervalSince(closedAt), 1, "the for-await loop ends when the store closes")
        XCTAssertEqual(ids, ["a", "b"], "the stream delivers every committed change, then ends on close")
        let lateStream = collection.changes()
        let late = Task { () -> Int in
            var count = 0
            for await _ in lateStream { count += 1 }
            return count
        }
        let lateWatchdog = Task {
            try? await Task.sleep(nanoseconds: 5_000_000_000)
            late.cancel()
        }
        let askedAt = Date()
        let lateCount = await late.value
        XCTAssertEqual(lateCount, 0)
        lateWatchdog.cancel()
        XCTAssertLessThan(Date().timeIntervalSince(askedAt), 1, "a stream asked for after close ends at once")
    }

    func testDecodedFindAndCreateOrOpenCollection() throws {
        let store = try openStore()
        defer { store.close() }
        let first = try store.createCollection("patients", indexedFields: ["age"], ifNotExists: true)
        try first.insert(Patient(name: "Ada", age: 36), id: "ada")
        try first.insert(Patient(name: "Bob", age: 17), id: "bob")
        let again = try store.createCollection("patients", indexedFields: ["age", "name"], ifNotExists: true)
        XCTAssertEqual(try again.indexedFields(), ["age", "name"])
        XCTAssertEqual(try again.count(), 2)
        XCTAssertThrowsError(try store.createCollection("patients")) { error in
            XCTAssertEqual(error as? DocumentError, .collectionExists("patients"))
        }
        let adults = try again.find(Patient.self, where: [.greaterThanOrEqual("age", 18)])
        XCTAssertEqual(adults, [Patient(name: "Ada", age: 36)])
        XCTAssertEqual(try again.explain(where: [.equal("name", "Bob")]), .indexScan("name"))
    }

    func testReadSnapshotIsConsistentAcrossReads() throws {
        let store = try openStore()
        defer { store.close() }
        let accounts = try store.collection("accounts")
        try accounts.insert(id: "a", value: ["balance": 100])
        try accounts.insert(id: "b", value: ["balance": 0])
        let writerDone = expectation(description: "transfer")
        let (firstBalance, secondBalance, names) = try store.read { snapshot -> (JSONValue?, JSONValue?, [String]) in
            let first = try snapshot.collection("accounts").get(id: "a")?[path: "balance"]
            // A transfer commits between the two reads; the snapshot does not see it.
            Thread { [accounts] in
                try! store.transaction { tx in
                    try tx.collection("accounts").upsert(id: "a", value: ["balance": 0])
                    try tx.collection("accounts").upsert(id: "b", value: ["balance": 100])
                }
                writerDone.fulfill()
                _ = accounts
            }.start()
            wait(for: [writerDone], timeout: 10)
            let second = try snapshot.collection("accounts").get(id: "b")?[path: "balance"]
            return (first, second, try snapshot.collectionNames())
        }
        XCTAssertEqual(firstBalance, 100)
        XCTAssertEqual(secondBalance, 0, "both reads come from one snapshot")
        XCTAssertEqual(names, ["accounts"])
        XCTAssertEqual(try accounts.get(id: "b")?[path: "balance"], 100)
        let total = try store.read { snapshot in
            try snapshot.collection("accounts").find(where: []).count
        }
        XCTAssertEqual(total, 2)
    }

    func testSnapshotIsUnusableAfterItsClosure() async throws {
        let store = try openStore()
        defer { store.close() }
        try store.collection("c").insert(id: "a", value: ["x": 1])
        let escaped = try store.read { (snapshot: StoreSnapshot) in snapshot }
        XCTAssertThrowsError(try escaped.collection("c")) { error in
            XCTAssertEqual(error as? DocumentError, .transactionNotActive)
        }
        let count = try await store.readAsync { try $0.collection("c").count() }
        XCTAssertEqual(count, 1)
    }
}
