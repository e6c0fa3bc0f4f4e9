import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The async forms of verification, key changes, conversions and restore: the same outcome as
/// the synchronous calls, and a cancelled task that leaves the store as it was.
final class StoreMaintenanceAsyncTests: XCTestCase {
    private static let secretText = "Patient Ouagadougou-5521 has a confidential diagnosis"

    /// A store with a document, a 3 MiB attachment and an indexed text file.
    private func populate(_ path: String, key: KeyProvider?) throws {
        let store = try Store.open(TestSupport.configuration(path, key: key))
        defer { store.close() }
        try store.createCollection("notes").insert(JSONValue.object(["text": .string(Self.secretText)]), id: "a")
        _ = try store.addAttachment(Data(repeating: 0x41, count: 3 << 20), contentType: "text/plain")
        let file = TestSupport.temporaryPath("visit.txt")
        try "the consultation mentions marimbaphone".write(toFile: file, atomically: true, encoding: .utf8)
        try store.library.add(fileAt: file, uid: "visit")
        try store.library.waitUntilIndexed()
    }

    private func checkContent(_ path: String, key: KeyProvider?, line: UInt = #line) throws {
        let store = try Store.open(TestSupport.configuration(path, key: key))
        defer { store.close() }
        let text = try store.collection("notes").get(id: "a")?.value.objectValue?["text"]?.stringValue
        XCTAssertEqual(text, Self.secretText, line: line)
        XCTAssertEqual(try store.library.search("marimbaphone").documents.keys.sorted(), ["visit"], line: line)
        let report = try store.verify()
        XCTAssertTrue(report.isHealthy, "\(report.problems)", line: line)
    }

    /// The store's files without `staging/` (which an open may settle).
    private func fileNames(_ path: String) -> Set<String> {
        Set(TestSupport.snapshot(path).keys).subtracting(["staging/"])
    }

    func testVerifyAsyncReportsWhatVerifyDoesAndStopsWhenCancelled() async throws {
        let path = TestSupport.temporaryPath()
        try populate(path, key: TestSupport.rawKey(1))
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let report = try await store.verifyAsync()
        XCTAssertEqual(report, try store.verify())
        XCTAssertTrue(report.isHealthy)
        XCTAssertEqual(report.attachmentsChecked, 2)
        // A cancellation met inside the work (BlockingWork's own check comes before it).
        let cancelled = WorkCancellation()
        cancelled.cancel()
        XCTAssertThrowsError(try store.verify(cancellation: cancelled)) { XCTAssertTrue($0 is CancellationError) }
        XCTAssertThrowsError(try store.verifyAttachments(cancellation: cancelled)) {
            XCTAssertTrue($0 is CancellationError, "\($0)")
        }
    }

    func testAKeyChangeCancelledBeforeItsWriteChangesNothing() async throws {
        let path = TestSupport.temporaryPath()
        try populate(path, key: TestSupport.rawKey(1))
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        let metadata = FileManager.default.contents(atPath: path + "/metadata.json")
        for change in ["rotate", "add"] {
            let gate = WorkGate()
            let provider: KeyProvider = {
                gate.pass()
                return try TestSupport.rawKey(2)()
            }
            let task = Task {
                if change == "rotate" {
                    try await store.rotateKeyAsync(to: provider)
                } else {
                    _ = try await store.addKeyAsync(provider, label: "second")
                }
            }
            try await gate.whenReached { task.cancel() }
            do {
                try await task.value
                XCTFail("\(change): the change was made despite the cancellation")
            } catch {
                XCTAssertTrue(error is CancellationError, "\(change): \(error)")
            }
            XCTAssertEqual(FileManager.default.contents(atPath: path + "/metadata.json"), metadata, change)
            XCTAssertEqual(try store.keyslots().count, 1, change)
        }
        store.close()
        XCTAssertThrowsCase("keyInvalid", try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2))))

        // Not cancelled: the same calls make their change.
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        let second = try await reopened.addKeyAsync(TestSupport.rawKey(2), label: "second")
        let recovery = try await reopened.addRecoveryKeyAsync()
        try await reopened.rotateKeyAsync(to: TestSupport.rawKey(3))
        try await reopened.removeKeyAsync(slot: second)
        XCTAssertEqual(try reopened.keyslots().map(\.label), [nil, "recovery"])
        reopened.close()
        try checkContent(path, key: TestSupport.rawKey(3))
        try checkContent(path, key: { recovery.key.key })
        XCTAssertThrowsCase("keyInvalid", try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2))))
        XCTAssertThrowsCase("keyInvalid", try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))))
    }

    func testAConversionCancelledMidwayLeavesTheStoreAsItWas() async throws {
        let path = TestSupport.temporaryPath()
        try populate(path, key: TestSupport.rawKey(1))
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()  // settles staging/
        let before = fileNames(path)
        let gate = WorkGate()
        let phases = Mutex<[StoreConversionProgress.Phase]>([])
        let task = Task {
            try await Store.reencryptAsync(
                TestSupport.configuration(path, key: TestSupport.rawKey(1)), newKey: TestSupport.rawKey(2)
            ) { progress in
                phases.withLock { $0.append(progress.phase) }
                if progress.phase == .attachments { gate.pass() }
                return true
            }
        }
        try await gate.whenReached { task.cancel() }
        do {
            _ = try await task.value
            XCTFail("the conversion finished despite the cancellation")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        XCTAssertFalse(phases.withLock { $0 }.contains(.switching))
        XCTAssertEqual(fileNames(path), before, "nothing of the new generation is left")
        try checkContent(path, key: TestSupport.rawKey(1))
        XCTAssertThrowsCase("keyInvalid", try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2))))

        // Not cancelled: re-encryption, decryption and encryption, the index's hashes keyed again.
        let removed = try await Store.reencryptAsync(
            TestSupport.configuration(path, key: TestSupport.rawKey(1)), newKey: TestSupport.rawKey(2))
        XCTAssertEqual(removed, [])
        try checkContent(path, key: TestSupport.rawKey(2))
        try await Store.decryptAsync(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        try checkContent(path, key: nil)
        try await Store.encryptAsync(TestSupport.configuration(path, key: nil), newKey: TestSupport.rawKey(3))
        try checkContent(path, key: TestSupport.rawKey(3))
        XCTAssertEqual(TestSupport.filesContaining([Array("Ouagadougou-5521".utf8)], under: path), [])
        // Unchanged content is not indexed again after the conversions (its hash was keyed again).
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(3)))
        defer { store.close() }
        let file = TestSupport.temporaryPath("visit.txt")
        try "the consultation mentions marimbaphone".write(toFile: file, atomically: true, encoding: .utf8)
        let hashes = try store.read { try $0.rows("SELECT content_hash FROM search_documents").map { $0[0] } }
        try store.library.add(fileAt: file, uid: "visit")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(
            try store.read { try $0.rows("SELECT content_hash FROM search_documents").map { $0[0] } }, hashes)
    }

    func testRestoreAsyncRestoresAndACancelledOneLeavesNothing() async throws {
        let path = TestSupport.temporaryPath()
        try populate(path, key: TestSupport.rawKey(1))
        let backup = TestSupport.temporaryPath("backup")
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try await store.backupAsync(to: backup)
        store.close()

        let cancelledTarget = TestSupport.temporaryPath("restored-cancelled")
        let gate = WorkGate()
        let task = Task {
            try await Store.restoreAsync(
                TestSupport.configuration(backup, key: TestSupport.rawKey(1)), to: cancelledTarget
            ) { _ in
                gate.pass()
                return true
            }
        }
        try await gate.whenReached { task.cancel() }
        do {
            _ = try await task.value
            XCTFail("the restore finished despite the cancellation")
        } catch {
            XCTAssertTrue(error is CancellationError || error as? BackupError == .cancelled, "\(error)")
        }
        XCTAssertFalse(Store.exists(at: cancelledTarget))
        XCTAssertEqual(TestSupport.snapshot(cancelledTarget), [:])

        let target = TestSupport.temporaryPath("restored")
        let summary = try await Store.restoreAsync(
            TestSupport.configuration(backup, key: TestSupport.rawKey(1)), to: target)
        XCTAssertEqual(summary.attachments, 2)
        try checkContent(target, key: TestSupport.rawKey(1))
        do {
            _ = try await Store.restoreAsync(TestSupport.configuration(backup, key: TestSupport.rawKey(1)), to: target)
            XCTFail("a restore over a store needs replacingExistingStore")
        } catch {
            XCTAssertEqual(error as? BackupError, .destinationExists(path: target))
        }
    }
}

/// Async writes that wait behind another write: a task cancelled meanwhile gets
/// `CancellationError` and nothing is done (README's cancellation table); a closed handle never
/// deletes what is at its path now; an unencrypted store's conversions say it is not encrypted.
final class StoreQueuedWriteCancellationTests: XCTestCase {
    func testWritesCancelledWhileQueuedBehindAnotherDoNothing() async throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        try store.library.add(data: Data("the ocarina".utf8), uid: "h.txt", fileExtension: "txt")
        try store.library.waitUntilIndexed()
        let attachmentsBefore = try store.read { try $0.scalar("SELECT count(*) FROM attachments")?.integerValue }
        let holding = Task { try await store.performTransaction { _ in _ = usleep(600_000) } }
        try await Task.sleep(nanoseconds: 100_000_000)
        let tasks: [(String, Task<Void, any Error>)] = [
            ("setTokenizerAsync", Task { try await store.library.setTokenizerAsync(.englishStemming) }),
            ("removeAsync", Task { _ = try await store.library.removeAsync(uid: "h.txt") }),
            ("addAttachmentAsync", Task { _ = try await store.addAttachmentAsync(Data("queued".utf8)) }),
            ("closeAndDeleteAsync", Task { try await store.closeAndDeleteAsync() }),
        ]
        try await Task.sleep(nanoseconds: 100_000_000)
        for (_, task) in tasks { task.cancel() }
        for (name, task) in tasks {
            do {
                try await task.value
                XCTFail("\(name) was done despite the cancellation")
            } catch {
                XCTAssertTrue(error is CancellationError, "\(name): \(error)")
            }
        }
        try await holding.value
        XCTAssertTrue(store.isOpen)
        XCTAssertEqual(try store.library.tokenizer(), .standard)
        XCTAssertEqual(try store.library.search("ocarina").rankedUIDs, ["h.txt"])
        XCTAssertEqual(
            try store.read { try $0.scalar("SELECT count(*) FROM attachments")?.integerValue }, attachmentsBefore)
        XCTAssertEqual(FileSystem.contents(of: path + "/staging").filter { !$0.hasPrefix(".") }, [])
    }

    func testAClosedHandleNeverDeletesTheStoreNowAtItsPath() throws {
        let path = TestSupport.temporaryPath()
        let first = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        first.close()
        try Store.delete(at: path)
        let second = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        try second.createCollection("notes").insert(JSONValue.object([:]), id: "kept")
        second.close()
        XCTAssertThrowsCase("closed", try first.closeAndDelete())
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        defer { reopened.close() }
        XCTAssertNotNil(try reopened.collection("notes").get(id: "kept"))
    }

    func testConversionsOfAnUnencryptedStoreSayItIsNotEncrypted() throws {
        let path = TestSupport.temporaryPath()
        try Store.open(TestSupport.configuration(path, key: nil)).close()
        for key in [nil, TestSupport.rawKey(1)] as [KeyProvider?] {
            XCTAssertThrowsCase("notEncrypted", try Store.reencrypt(TestSupport.configuration(path, key: key)))
            XCTAssertThrowsCase("notEncrypted", try Store.decrypt(TestSupport.configuration(path, key: key)))
        }
    }
}
