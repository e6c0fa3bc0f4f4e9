import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

private struct Boom: Error {}

/// Carries a non-Sendable value to another thread, to check that it refuses the use.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
}

final class DocumentTransactionTests: XCTestCase {
    func testThrowingTransactionLeavesNothing() throws {
        let store = try DocumentTestSupport.openStore()
        try store.collection("kept").insert(id: "k", value: ["v": 1])
        XCTAssertThrowsError(
            try store.transaction { tx in
                try tx.collection("a").insert(id: "1", value: ["x": 1])
                try tx.collection("b").insert(id: "2", value: ["y": 2])
                try tx.collection("kept").upsert(id: "k", value: ["v": 2])
                _ = try tx.collection("kept").remove(id: "k")
                XCTAssertEqual(try tx.collectionNames(), ["a", "b", "kept"])
                XCTAssertEqual(try tx.collection("a").get(id: "1")?.value, ["x": 1])  // sees its own writes
                throw Boom()
            }
        ) { XCTAssertTrue($0 is Boom) }
        XCTAssertEqual(try store.collectionNames(), ["kept"])
        XCTAssertDocumentError(.unknownCollection("a"), try store.collection("a").get(id: "1"))
        XCTAssertEqual(try store.collection("kept").get(id: "k")?.value, ["v": 1])
        XCTAssertEqual(try store.read { try $0.scalar("SELECT count(*) FROM document_index")?.integerValue }, 0)
    }

    func testOperationsCommitTogetherAndJoinRunningTransaction() throws {
        let store = try DocumentTestSupport.openStore()
        let result = try store.transaction { tx -> Int in
            try tx.createCollection("orders", indexedFields: ["status"])
            try tx.collection("orders").insert(id: "o1", value: ["status": "new"])
            // A store-level collection used on this thread joins the transaction (no deadlock).
            try store.collection("orders").insert(id: "o2", value: ["status": "new"])
            XCTAssertEqual(try store.collection("orders").find(where: [.equal("status", "new")]).count, 2)
            // A failing operation is undone on its own; the transaction goes on.
            XCTAssertDocumentError(
                .duplicateID(collection: "orders", id: "o1"),
                try tx.collection("orders").insert(id: "o1", value: ["status": "dup"]))
            // A failing nested transaction is undone on its own.
            XCTAssertThrowsError(
                try store.transaction { inner in
                    try inner.collection("orders").insert(id: "o3", value: ["status": "x"])
                    throw Boom()
                })
            // Another thread sees the last committed state, not this transaction.
            let seen = LockedList<Bool>()
            let smuggled = UncheckedBox(value: tx)
            let thread = Thread {
                seen.append((try? store.collection("orders").get(id: "o1")) == nil)
                // The transaction cannot be used from another thread.
                seen.append((try? smuggled.value.collection("orders")) == nil)
            }
            thread.start()
            XCTAssertEqual(seen.wait(for: 2), [true, true])
            return try tx.collection("orders").count()
        }
        XCTAssertEqual(result, 2)
        let orders = try store.collection("orders")
        XCTAssertEqual(try orders.list().map(\.id), ["o1", "o2"])
        XCTAssertEqual(try orders.explain(where: [.equal("status", "new")]), .indexScan("status"))
        XCTAssertEqual(try orders.find(where: [.equal("status", "new")]).map(\.id), ["o1", "o2"])
    }

    func testObserversSeeOnlyCommittedChangesOnceInOrder() async throws {
        let store = try DocumentTestSupport.openStore()
        let notes = try store.collection("notes")
        var stream: AsyncStream<DocumentChange>? = notes.changes()
        let callbacks = LockedList<DocumentChange>()
        let token = notes.observe { callbacks.append($0) }
        let otherCallbacks = LockedList<DocumentChange>()
        let otherToken = try store.collection("other").observe { otherCallbacks.append($0) }

        try notes.insert(id: "a", value: ["t": 1])
        try store.transaction { tx in
            try tx.collection("notes").insert(id: "b", value: ["t": 2])
            try tx.collection("notes").upsert(id: "a", value: ["t": 3])
            try tx.collection("other").insert(id: "x", value: [:])
        }
        XCTAssertThrowsError(
            try store.transaction { tx in
                try tx.collection("notes").insert(id: "rolled-back", value: [:])
                throw Boom()
            })
        try store.transaction { tx in
            XCTAssertThrowsError(try tx.collection("notes").insert(id: "b", value: [:]))  // failed op: no change
            XCTAssertThrowsError(
                try store.transaction { inner in
                    try inner.collection("notes").remove(id: "a")
                    throw Boom()
                })
            try tx.collection("notes").remove(id: "b")
        }
        try notes.upsert(id: "c", value: [:])
        try store.dropCollection("notes")

        let expected: [DocumentChange] = [
            .init(collection: "notes", id: "a", kind: .insert), .init(collection: "notes", id: "b", kind: .insert),
            .init(collection: "notes", id: "a", kind: .update), .init(collection: "notes", id: "b", kind: .remove),
            .init(collection: "notes", id: "c", kind: .insert), .init(collection: "notes", id: "a", kind: .remove),
            .init(collection: "notes", id: "c", kind: .remove),
        ]
        var streamed: [DocumentChange] = []
        for await change in stream! {
            streamed.append(change)
            if streamed.count == expected.count { break }
        }
        XCTAssertEqual(streamed, expected)
        XCTAssertEqual(callbacks.wait(for: expected.count), expected)
        XCTAssertEqual(otherCallbacks.wait(for: 1), [.init(collection: "other", id: "x", kind: .insert)])
        usleep(50_000)
        XCTAssertEqual(callbacks.values.count, expected.count)  // nothing more

        token.cancel()
        otherToken.cancel()
        try notes.insert(id: "after", value: [:])
        usleep(50_000)
        XCTAssertEqual(callbacks.values.count, expected.count)
        XCTAssertEqual(store.changeObservers.count, 1)  // the stream is still subscribed
        stream = nil
        XCTAssertEqual(store.changeObservers.count, 0)  // the released stream and the tokens unsubscribed
    }

    func testConcurrentWritersAreObservedInCommitOrder() throws {
        let store = try DocumentTestSupport.openStore()
        let items = try store.collection("items")
        let observed = LockedList<DocumentChange>()
        let token = items.observe { observed.append($0) }
        let commitOrder = LockedList<String>()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for n in 0..<25 {
                let id = "w\(worker)-\(n)"
                try! store.transaction { tx in
                    try tx.collection("items").insert(id: id, value: ["n": .number(JSONNumber(n))])
                    if n % 5 == 4 {
                        try tx.collection("items").upsert(id: id, value: ["n": .number(JSONNumber(-n))])
                    }
                    commitOrder.append(id)  // the writer is held: this is commit order
                }
            }
        }
        let expected = commitOrder.values.flatMap { id -> [DocumentChange] in
            let insert = DocumentChange(collection: "items", id: id, kind: .insert)
            return id.hasSuffix("4") || id.hasSuffix("9")
                ? [insert, .init(collection: "items", id: id, kind: .update)] : [insert]
        }
        XCTAssertEqual(expected.count, 120)
        XCTAssertEqual(observed.wait(for: expected.count), expected)
        XCTAssertEqual(try items.count(), 100)
        withExtendedLifetime(token) {}
    }

    func testReleasedTokenStopsObservation() throws {
        let store = try DocumentTestSupport.openStore()
        let items = try store.collection("items")
        let observed = LockedList<DocumentChange>()
        var token: ObservationToken? = items.observe { observed.append($0) }
        try items.insert(id: "1", value: [:])
        XCTAssertEqual(observed.wait(for: 1).count, 1)
        XCTAssertFalse(token!.isCancelled)
        token = nil
        try items.insert(id: "2", value: [:])
        usleep(50_000)
        XCTAssertEqual(observed.values.count, 1)
        XCTAssertEqual(store.changeObservers.count, 0)
    }
}

final class AsyncTransactionTests: XCTestCase {
    func testAsyncTransactionCommits() async throws {
        let store = try await Store.openAsync(
            TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(1)))
        defer { store.close() }
        let count = try await store.performTransaction { tx -> Int in
            try tx.collection("c").insert(id: "a", value: ["x": 1])
            return try tx.collection("c").count()
        }
        XCTAssertEqual(count, 1)
        XCTAssertEqual(try store.collection("c").get(id: "a")?.value, ["x": 1])
    }
}

final class TransactionFailureTests: XCTestCase {
    struct Injected: Error {}

    func testAnOperationFailingAfterItWroteDoomsTheTransaction() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(1)))
        defer { store.close() }
        try store.collection("c").insert(id: "before", value: ["x": 1])
        XCTAssertThrowsError(
            try store.transaction { tx in
                try tx.collection("c").insert(id: "kept?", value: ["x": 2])
                // A failure before any write leaves the transaction usable...
                XCTAssertThrowsError(try tx.collection("c").insert(id: "before", value: [:]))
                try tx.collection("c").insert(id: "also", value: ["x": 3])
                // ...one after a write dooms it: later operations and the commit fail.
                XCTAssertThrowsError(
                    try tx.atomicWrite {
                        try tx.connection.execute(
                            "INSERT INTO cipherdex_settings (name, value) VALUES ('half', 'written')")
                        throw Injected()
                    })
                XCTAssertThrowsError(try tx.collection("c").insert(id: "after", value: [:])) {
                    XCTAssertTrue($0 is Injected)
                }
            }
        ) { XCTAssertTrue($0 is Injected) }
        XCTAssertEqual(try store.collection("c").list().map(\.id), ["before"], "the whole transaction rolled back")
        XCTAssertEqual(
            try store.read { try $0.scalar("SELECT count(*) FROM cipherdex_settings WHERE name = 'half'") }, .integer(0)
        )
    }
}
