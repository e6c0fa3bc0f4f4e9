import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Store APIs called inside `store.transaction { }` on its thread: each takes part in the
/// transaction or throws `StoreError.insideTransaction` at once; none waits for the writer lock
/// the transaction holds. Every test runs under a watchdog, so a deadlock fails instead of
/// hanging the suite.
final class StoreTransactionReentrancyTests: XCTestCase {
    private struct Abort: Error {}
    private struct TimedOut: Error {}

    private var path = ""
    private var store: Store!
    /// Set when the watchdog fired: a thread is stuck holding the writer, so closing the store
    /// would hang too; it is left open.
    private var isStuck = false

    override func setUpWithError() throws {
        path = TestSupport.temporaryPath()
        store = try DocumentTestSupport.openStore(path: path)
    }

    override func tearDown() {
        if !isStuck { store?.close() }
    }

    private static func content(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7 &+ $0 >> 8) })
    }

    /// Runs `body` under a 20 s watchdog and rethrows what it throws; a timeout fails the test
    /// and throws `TimedOut`, ending it.
    private func withinSeconds<T>(line: UInt = #line, _ body: @escaping @Sendable () throws -> T) throws -> T {
        guard let result = Watchdog.finishing(within: 20, line: line, body) else {
            isStuck = true
            throw TimedOut()
        }
        return try result.get()
    }

    private static func assertInsideTransaction<T>(_ operation: String, _ body: () throws -> T, line: UInt = #line) {
        XCTAssertThrowsExactly(StoreError.insideTransaction(operation: operation), try body(), line: line)
    }

    private func reopen() throws {
        store.close()
        store = try DocumentTestSupport.openStore(path: path)
    }

    func testStoreAddAttachmentJoinsTheTransactionAndIsReadableThere() throws {
        let file = TestSupport.temporaryPath("input.bin")
        _ = FileManager.default.createFile(atPath: file, contents: Self.content(90_000, seed: 2))
        let store = self.store!
        let ids = try withinSeconds {
            try store.transaction { tx -> [String] in
                let fromData = try store.addAttachment(Self.content(70_000, seed: 1))
                let fromFile = try store.addAttachment(fromFile: file)
                let fromPieces = try store.addAttachment(from: [Self.content(5, seed: 3), Self.content(40_000, seed: 4)])
                // Readable inside the transaction, through the store's own read APIs.
                XCTAssertEqual(try store.attachmentData(fromData.id), Self.content(70_000, seed: 1))
                XCTAssertEqual(try store.attachment(fromFile.id).read(range: 10..<20), Self.content(90_000, seed: 2)[10..<20])
                XCTAssertEqual(try store.attachmentToken(fromPieces.id)?.length, 40_005)
                XCTAssertEqual(Set(try store.attachmentTokens().map(\.id)), [fromData.id, fromFile.id, fromPieces.id])
                try tx.collection("notes").insert(["title": "t", "files": [fromData]] as NoteDocument, id: "n")
                return [fromData.id, fromFile.id, fromPieces.id]
            }
        }
        let committed = ids
        try reopen()
        XCTAssertEqual(try self.store.attachmentData(committed[0]), Self.content(70_000, seed: 1))
        XCTAssertEqual(try self.store.attachmentData(committed[1]), Self.content(90_000, seed: 2))
        XCTAssertEqual(try self.store.attachmentData(committed[2]), Self.content(5, seed: 3) + Self.content(40_000, seed: 4))
        XCTAssertTrue(try self.store.verify().isHealthy)
    }

    func testAttachmentsAddedInARolledBackTransactionLeaveNoRowAndNoFile() throws {
        let file = TestSupport.temporaryPath("input.bin")
        _ = FileManager.default.createFile(atPath: file, contents: Self.content(30_000, seed: 5))
        let store = self.store!
        XCTAssertThrowsError(
            try withinSeconds {
                try store.transaction { _ in
                    _ = try store.addAttachment(Self.content(50_000, seed: 6))
                    _ = try store.addAttachment(fromFile: file)
                    _ = try store.addAttachment(from: [Self.content(1_000, seed: 7)])
                    XCTAssertEqual(try store.attachmentTokens().count, 3)
                    throw Abort()
                }
            }
        ) { XCTAssertTrue($0 is Abort, "\($0)") }
        if isStuck { return }
        XCTAssertEqual(try store.attachmentTokens(), [])
        try reopen()
        XCTAssertEqual(try self.store.attachmentTokens(), [])
        XCTAssertEqual(FileSystem.contents(of: path + "/attachments"), [])
        XCTAssertTrue(try self.store.verify().isHealthy)
    }

    func testOtherStoreAPIsJoinOrRefuseAtOnce() throws {
        let kept = try store.addAttachment(Self.content(10_000, seed: 8))
        let removed = try store.addAttachment(Self.content(10_000, seed: 9))
        let store = self.store!
        _ = try withinSeconds {
            try store.transaction { _ in
                XCTAssertTrue(try store.removeAttachment(removed.id))
                XCTAssertThrowsError(try store.attachment(removed.id))
                try store.collection("people").insert(id: "ada", value: ["name": "Ada"])
                XCTAssertEqual(try store.collection("people").get(id: "ada")?.value, ["name": "Ada"])
                try store.library.add(data: Data("otters swim".utf8), uid: "otters", fileExtension: "txt")
                store.library.waitUntilIdle()  // returns at once: the indexer waits for this transaction
                // Reader snapshots run beside the writer: the committed state, no deadlock.
                XCTAssertEqual(try store.read { try $0.rows("SELECT id FROM attachments").count }, 2)
                Self.assertInsideTransaction("verify()") { try store.verify() }
                Self.assertInsideTransaction("rotateKey(to:)") { try store.rotateKey(to: TestSupport.rawKey(2)) }
                Self.assertInsideTransaction("addKey") { try store.addKey(TestSupport.rawKey(2)) }
                Self.assertInsideTransaction("addRecoveryKey") { _ = try store.addRecoveryKey() }
                Self.assertInsideTransaction("closeAndDelete()") { try store.closeAndDelete() }
                Self.assertInsideTransaction("a write to the database") { try store.write { _ in 0 } }
                XCTAssertTrue(store.isOpen)
            }
        }
        store.library.waitUntilIdle()
        XCTAssertEqual(try store.library.search("otters").rankedUIDs, ["otters"])
        XCTAssertEqual(try store.collection("people").get(id: "ada")?.value, ["name": "Ada"])
        XCTAssertEqual(Set(try store.attachmentTokens().map(\.id)).contains(kept.id), true)
        XCTAssertNil(try store.attachmentToken(removed.id))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/attachments/" + removed.id))
    }

    func testCloseInsideATransactionClosesWhenItEnds() throws {
        let store = self.store!
        _ = try withinSeconds {
            try store.transaction { tx in
                try tx.collection("c").insert(id: "before", value: ["v": 1])
                store.close()
                XCTAssertTrue(store.isOpen, "the transaction goes on")
                try tx.collection("c").insert(id: "after", value: ["v": 2])
                _ = try store.addAttachment(Self.content(100, seed: 1))
            }
        }
        XCTAssertFalse(store.isOpen)
        XCTAssertThrowsExactly(StoreError.closed, try store.collection("c").get(id: "before"))
        try reopen()
        XCTAssertEqual(try self.store.collection("c").get(id: "before")?.value, ["v": 1])
        XCTAssertEqual(try self.store.collection("c").get(id: "after")?.value, ["v": 2])
        XCTAssertEqual(try self.store.attachmentTokens().count, 1)
    }

    func testCloseInsideARolledBackTransactionClosesAndKeepsNothing() throws {
        let store = self.store!
        XCTAssertThrowsError(
            try withinSeconds {
                try store.transaction { tx in
                    try tx.collection("c").insert(id: "x", value: ["v": 1])
                    // Nested (joined) transaction: the close waits for the outermost one.
                    try store.transaction { _ in store.close() }
                    XCTAssertTrue(store.isOpen)
                    throw Abort()
                }
            }
        ) { XCTAssertTrue($0 is Abort, "\($0)") }
        if isStuck { return }
        XCTAssertFalse(store.isOpen)
        try reopen()
        XCTAssertEqual(try self.store.collectionNames(), [])
    }
}
