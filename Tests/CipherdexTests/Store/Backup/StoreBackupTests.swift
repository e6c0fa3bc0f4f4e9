import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Online backups: a consistent copy that opens with the same keys, incremental on the second
/// run, taken while the store is written, and never any plaintext in it.
final class StoreBackupTests: XCTestCase {
    static let secretText = "Patient Quokka-5521 has a confidential diagnosis"
    static let attachmentText = "attachment body axolotl-9034 " + String(repeating: "y", count: 2 << 20)

    /// A store with documents, two attachments and an indexed text file.
    static func populate(_ path: String, key: KeyProvider?) throws -> [String] {
        let store = try Store.open(TestSupport.configuration(path, key: key))
        defer { store.close() }
        let notes = try store.createCollection("notes", indexedFields: ["n"])
        try notes.insert(JSONValue.object(["text": .string(secretText), "n": .number(JSONNumber(7))]), id: "a")
        let big = try store.addAttachment(Data(attachmentText.utf8), contentType: "text/plain")
        let small = try store.addAttachment(Data("small attachment marmoset-1187".utf8))
        let file = TestSupport.temporaryPath("visit.txt")
        try "the consultation mentions pangolinist".write(toFile: file, atomically: true, encoding: .utf8)
        try store.library.add(fileAt: file, uid: "visit")
        try store.library.waitUntilIndexed()
        return [big.id, small.id]
    }

    private func allFiles(_ path: String) -> [String: [UInt8]] {
        TestSupport.snapshot(path).filter { !$0.key.hasSuffix("/") }
    }

    func testBackupOpensWithTheSameKeysAndHoldsEverythingButNoPlaintext() throws {
        let path = TestSupport.temporaryPath()
        let ids = try Self.populate(path, key: TestSupport.rawKey(1))
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        let (recoverySlot, recovery) = try store.addRecoveryKey()
        let destination = TestSupport.temporaryPath("backup")
        var phases: [BackupProgress.Phase] = []
        let recorded = Mutex<[BackupProgress.Phase]>([])
        let summary = try store.backup(to: destination) { progress in
            recorded.withLock { if $0.last != progress.phase { $0.append(progress.phase) } }
            return true
        }
        phases = recorded.withLock { $0 }
        store.close()
        XCTAssertEqual(phases, [.database, .verifying, .attachments, .verifying, .switching])
        XCTAssertEqual(summary.attachments, 3, "two attachments and the indexed file's copy")
        XCTAssertEqual(summary.attachmentsCopied, 3)
        XCTAssertFalse(summary.incremental)
        XCTAssertGreaterThan(recoverySlot, 0)

        // The backup is a store: opened with the data's key, and with the recovery key.
        let typed = recovery.formatted
        let recoveryProvider: KeyProvider = { try RecoveryKey(parsing: typed).key }
        for key in [TestSupport.rawKey(1), recoveryProvider] {
            let backup = try Store.open(TestSupport.configuration(destination, key: key))
            XCTAssertEqual(
                try backup.collection("notes").get(id: "a")?.value.objectValue?["text"]?.stringValue, Self.secretText)
            XCTAssertEqual(Array(try backup.attachment(ids[0]).readAll()), Array(Self.attachmentText.utf8))
            XCTAssertEqual(try backup.library.search("pangolinist").documents.keys.sorted(), ["visit"])
            XCTAssertTrue(try backup.verify().isHealthy)
            backup.close()
        }
        XCTAssertThrowsCase(
            "keyInvalid", try Store.open(TestSupport.configuration(destination, key: TestSupport.rawKey(2))))
        // No plaintext of a document, an attachment or the page text in any file of the backup.
        let files = allFiles(destination)
        XCTAssertNotNil(files["metadata.json"])
        XCTAssertNotNil(files["store.db"])
        for (name, bytes) in files {
            for marker in ["Quokka-5521", "axolotl-9034", "marmoset-1187", "pangolinist", "notes"] {
                XCTAssertFalse(TestSupport.contains(bytes, Array(marker.utf8)), "\(marker) in \(name)")
            }
        }
        XCTAssertTrue(
            FileSystem.contents(of: FileSystem.parent(of: destination)).allSatisfy { !$0.contains(".backup-") },
            "no building directory is left")
    }

    func testSecondBackupCopiesOnlyNewAttachmentsAndSwitchesAtomically() throws {
        let path = TestSupport.temporaryPath()
        let ids = try Self.populate(path, key: TestSupport.rawKey(1))
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let destination = TestSupport.temporaryPath("backup")
        try store.backup(to: destination)
        let added = try store.addAttachment(Data("new attachment wombat-2290".utf8))
        XCTAssertTrue(try store.removeAttachment(ids[1]))
        try store.collection("notes").insert(JSONValue.object(["n": .number(JSONNumber(8))]), id: "b")
        let second = try store.backup(to: destination)
        XCTAssertTrue(second.incremental)
        XCTAssertEqual(second.attachmentsCopied, 1, "only the new attachment is copied")
        XCTAssertEqual(second.attachmentsReused, 2)
        XCTAssertEqual(second.attachmentBytesCopied, FileSystem.size(store.attachmentStorage.path(of: added.id)))
        let names = Set(FileSystem.contents(of: destination))
        XCTAssertEqual(
            names, ["metadata.json", "store.1.db", "attachments.1", "cipherdex.lock"], "the first generation is gone")
        // A third run goes back to generation 0.
        try store.backup(to: destination)
        XCTAssertEqual(
            Set(FileSystem.contents(of: destination)), ["metadata.json", "store.db", "attachments", "cipherdex.lock"])

        let backup = try Store.open(TestSupport.configuration(destination, key: TestSupport.rawKey(1)))
        defer { backup.close() }
        XCTAssertNotNil(try backup.collection("notes").get(id: "b"))
        XCTAssertEqual(Array(try backup.attachment(added.id).readAll()), Array("new attachment wombat-2290".utf8))
        XCTAssertThrowsError(try backup.attachment(ids[1]))
        XCTAssertTrue(try backup.verify().isHealthy)
    }

    func testBackupIsOneCommitWhileWritersGoOn() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(3)))
        defer { store.close() }
        let log = try store.createCollection("log")
        // Enough pages that the copy takes several steps.
        for number in 0..<400 {
            try log.insert(
                JSONValue.object([
                    "n": .number(JSONNumber(number)), "pad": .string(String(repeating: "p", count: 2000)),
                ]), id: String(format: "%06d", number))
        }
        let running = Atomic<Bool>(true)
        let written = Atomic<Int>(400)
        let writer = Thread {
            var number = 400
            while running.load(ordering: .acquiring) {
                // Each transaction: a document and the attachment it names, together or not at all.
                try? store.transaction { transaction in
                    let token = try transaction.addAttachment(Data("entry \(number)".utf8))
                    try transaction.collection("log").insert(
                        JSONValue.object(["n": .number(JSONNumber(number)), "file": .string(token.id)]),
                        id: String(format: "%06d", number))
                }
                number += 1
                written.store(number, ordering: .releasing)
            }
        }
        writer.start()
        defer { running.store(false, ordering: .releasing) }
        while written.load(ordering: .acquiring) < 420 { usleep(1000) }
        let destination = TestSupport.temporaryPath("backup")
        let before = written.load(ordering: .acquiring)
        let stepsSeen = Atomic<Int>(0)
        try store.backup(to: destination) { _ in
            stepsSeen.add(1, ordering: .relaxed)
            usleep(2000)  // a slow disk: writers must go on meanwhile
            return true
        }
        let after = written.load(ordering: .acquiring)
        running.store(false, ordering: .releasing)
        XCTAssertGreaterThan(
            after - before, 5, "writers committed during the backup (\(stepsSeen.load(ordering: .relaxed)) steps)")

        let backup = try Store.open(TestSupport.configuration(destination, key: TestSupport.rawKey(3)))
        defer { backup.close() }
        let documents = try backup.collection("log").find(where: [])
        let numbers = documents.compactMap { Int($0.id) }.sorted()
        XCTAssertEqual(numbers, Array(0..<numbers.count), "a prefix of the commits: one snapshot")
        XCTAssertGreaterThanOrEqual(numbers.count, 420)
        for document in documents {
            guard let file = document.value.objectValue?["file"]?.stringValue else { continue }
            XCTAssertEqual(
                String(decoding: try backup.attachment(file).readAll(), as: UTF8.self),
                "entry \(Int(document.id)!)")
        }
        XCTAssertTrue(try backup.verify().isHealthy)
    }

    func testAttachmentRemovedDuringTheBackupIsStillInIt() throws {
        let path = TestSupport.temporaryPath()
        let ids = try Self.populate(path, key: TestSupport.rawKey(1))
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let destination = TestSupport.temporaryPath("backup")
        let removed = Atomic<Bool>(false)
        try store.backup(to: destination) { progress in
            if progress.phase == .database && !removed.exchange(true, ordering: .relaxed) {
                XCTAssertTrue((try? store.removeAttachment(ids[1])) == true)
            }
            return true
        }
        XCTAssertFalse(FileSystem.exists(store.attachmentStorage.path(of: ids[1])), "unlinked once the backup ended")
        let backup = try Store.open(TestSupport.configuration(destination, key: TestSupport.rawKey(1)))
        defer { backup.close() }
        XCTAssertEqual(Array(try backup.attachment(ids[1]).readAll()), Array("small attachment marmoset-1187".utf8))
    }

    func testUnencryptedStoreBacksUpAndRestores() throws {
        let path = TestSupport.temporaryPath()
        let ids = try Self.populate(path, key: nil)
        let destination = TestSupport.temporaryPath("backup")
        let store = try Store.open(TestSupport.configuration(path, key: nil))
        try store.backup(to: destination)
        store.close()
        let restored = TestSupport.temporaryPath("restored")
        try Store.restore(TestSupport.configuration(destination, key: nil), to: restored)
        let reopened = try Store.open(TestSupport.configuration(restored, key: nil))
        defer { reopened.close() }
        XCTAssertFalse(reopened.isEncrypted)
        XCTAssertEqual(Array(try reopened.attachment(ids[0]).readAll()), Array(Self.attachmentText.utf8))
        XCTAssertTrue(try reopened.verify().isHealthy)
    }

    /// A restore only reads its backup: one made before the store id was kept in the database
    /// is left as it is (upgrade audit 5: the restore's writable open gave it the row), and the
    /// key is asked for once.
    func testARestoreLeavesItsBackupAsItWas() throws {
        let reopened = try Self.restoreOfAnOlderBackup { db in
            try db.execute("DELETE FROM cipherdex_settings WHERE name = ?", [.text(Store.storeIDSetting)])
        }
        defer { reopened.close() }
        XCTAssertTrue(try reopened.verify().isHealthy)
    }

    /// An older build's backup (a migration pending) is copied as it is: the backup is never
    /// migrated in place (a writable open did: its files changed, and a backup on read-only media
    /// could not be restored at all), and the restored store migrates at its first open.
    func testARestoreOfAnOlderBuildsBackupLeavesItUnmigrated() throws {
        let reopened = try Self.restoreOfAnOlderBackup { db in
            // As a build before migration 6 left it: no removal records.
            try db.execute("DROP TABLE attachment_removals")
            try db.execute("DELETE FROM cipherdex_schema WHERE version = 6")
            try db.execute("DELETE FROM cipherdex_settings WHERE name = ?", [.text(Store.storeIDSetting)])
        }
        defer { reopened.close() }
        XCTAssertEqual(
            try reopened.read { try $0.scalar("SELECT count(*) FROM cipherdex_schema WHERE version = 6") }?
                .integerValue, 1, "the restored store migrates at its first open")
        XCTAssertTrue(try reopened.verify().isHealthy)
        XCTAssertEqual(
            try reopened.collection("notes").get(id: "a")?.value.objectValue?["text"]?.stringValue, Self.secretText)
        XCTAssertEqual(try reopened.library.search("pangolinist").documents.keys.sorted(), ["visit"])
    }

    /// Restores a backup that `makeOlder` turned into an older build's, checking that the
    /// restore left every file of the backup as it was and asked for the key once; returns the
    /// restored store, open.
    private static func restoreOfAnOlderBackup(
        _ makeOlder: (Connection) throws -> Void, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Store {
        let backup = try populatedBackup()
        let older = try Store.open(TestSupport.configuration(backup, key: TestSupport.rawKey(1)))
        try older.write(makeOlder)
        older.close()
        let before = TestSupport.snapshot(backup)
        let asked = Atomic<Int>(0)
        let key = TestSupport.rawKey(1)
        var configuration = TestSupport.configuration(backup, key: nil)
        configuration.keyProvider = {
            asked.add(1, ordering: .relaxed)
            return try key()
        }
        let restored = TestSupport.temporaryPath("restored")
        try Store.restore(configuration, to: restored)
        XCTAssertEqual(
            TestSupport.snapshot(backup), before, "the restore wrote into its backup", file: file, line: line)
        XCTAssertEqual(asked.load(ordering: .relaxed), 1, file: file, line: line)
        return try Store.open(TestSupport.configuration(restored, key: TestSupport.rawKey(1)))
    }

    /// A backup (key 1) of a populated store, for the restore tests.
    private static func populatedBackup() throws -> String {
        let path = TestSupport.temporaryPath()
        _ = try populate(path, key: TestSupport.rawKey(1))
        let destination = TestSupport.temporaryPath("backup")
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        try store.backup(to: destination)
        return destination
    }

    func testRestoreRefusesAnExistingStoreUnlessConfirmedThenReplacesIt() throws {
        let destination = try Self.populatedBackup()
        let other = TestSupport.temporaryPath("other")
        let otherStore = try Store.open(TestSupport.configuration(other, key: TestSupport.rawKey(5)))
        try otherStore.createCollection("other").insert(JSONValue.object([:]), id: "x")
        otherStore.close()
        let before = TestSupport.snapshot(other)
        XCTAssertThrowsCase(
            "destinationExists",
            try Store.restore(TestSupport.configuration(destination, key: TestSupport.rawKey(1)), to: other))
        XCTAssertEqual(TestSupport.snapshot(other), before, "refused: nothing changed")
        let summary = try Store.restore(
            TestSupport.configuration(destination, key: TestSupport.rawKey(1)), to: other, replacingExistingStore: true)
        XCTAssertFalse(summary.incremental, "another store's files are never reused")
        XCTAssertThrowsCase("keyInvalid", try Store.open(TestSupport.configuration(other, key: TestSupport.rawKey(5))))
        let restored = try Store.open(TestSupport.configuration(other, key: TestSupport.rawKey(1)))
        defer { restored.close() }
        XCTAssertEqual(
            try restored.collection("notes").get(id: "a")?.value.objectValue?["text"]?.stringValue, Self.secretText)
        XCTAssertTrue(try restored.verify().isHealthy)
        XCTAssertEqual(Set(FileSystem.contents(of: other)).intersection(["store.db", "store.1.db"]).count, 1)
    }

    /// `close()` from a backup's own progress handler (the backup's reader still in use on that
    /// thread) returns at once, rather than waiting out SQLite's 5 s busy timeout in its final
    /// checkpoint (concurrency audit 3); the backup then stops as the store is closed or
    /// finishes, and the store's data is all there at the next open.
    func testCloseFromABackupsProgressHandlerDoesNotWaitForTheBackup() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try store.createCollection("notes").insert(JSONValue.object(["text": .string(Self.secretText)]), id: "a")
        let closedAfter = Mutex<Duration?>(nil)
        _ = try? store.backup(to: TestSupport.temporaryPath("backup")) { _ in
            if closedAfter.withLock({ $0 }) == nil {
                let started = ContinuousClock.now
                store.close()
                closedAfter.withLock { $0 = ContinuousClock.now - started }
            }
            return true
        }
        let took = try XCTUnwrap(closedAfter.withLock { $0 })
        XCTAssertLessThan(took, .milliseconds(2_500), "close waited for the backup's reader")
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { reopened.close() }
        XCTAssertEqual(
            try reopened.collection("notes").get(id: "a")?.value.objectValue?["text"]?.stringValue, Self.secretText)
    }

    /// A store made at the destination after `restore` looked (here by the key provider, which
    /// runs after that look: another restore or a create racing it) is `destinationExists`, as
    /// one there before is (concurrency audit: `destinationIsAnotherStore`, "not a backup of
    /// this one").
    func testAStoreMadeAtTheDestinationMeanwhileIsDestinationExists() throws {
        let backup = try Self.populatedBackup()
        let destination = TestSupport.temporaryPath("raced")
        var configuration = TestSupport.configuration(backup, key: nil)
        configuration.keyProvider = {
            if !FileSystem.exists(destination) {
                try Store.open(TestSupport.configuration(destination, key: nil)).close()
            }
            return try TestSupport.rawKey(1)()
        }
        XCTAssertThrowsCase("destinationExists", try Store.restore(configuration, to: destination))
    }

    /// A folder holding another program's `store.db` and `attachments/` (no Cipherdex metadata,
    /// lock file or tombstone) is not a store: a restore is refused even when confirmed, and
    /// nothing there is removed.
    func testRestoreNeverReplacesAnotherProgramsFiles() throws {
        let destination = try Self.populatedBackup()
        let app = TestSupport.temporaryPath("app")
        try FileManager.default.createDirectory(atPath: app + "/attachments", withIntermediateDirectories: true)
        try Data("SQLite format 3\u{0}another app".utf8).write(to: URL(fileURLWithPath: app + "/store.db"))
        try Data("invoice".utf8).write(to: URL(fileURLWithPath: app + "/attachments/invoice.pdf"))
        try Data("[app]".utf8).write(to: URL(fileURLWithPath: app + "/config.ini"))
        let before = TestSupport.snapshot(app)
        for replacing in [false, true] {
            XCTAssertThrowsCase(
                "destinationNotAStore",
                try Store.restore(
                    TestSupport.configuration(destination, key: TestSupport.rawKey(1)), to: app,
                    replacingExistingStore: replacing))
            XCTAssertEqual(TestSupport.snapshot(app) == before, true, "replacing: \(replacing): nothing changed")
        }
    }

    /// A folder holding only a lock file (what a killed `create` leaves) holds no store: a
    /// restore or a backup builds there without a confirmation, rather than saying it "already
    /// holds a store" or "a store that is not a backup of this one".
    func testRestoreAndBackupIntoAFolderHoldingOnlyALockFile() throws {
        let destination = try Self.populatedBackup()
        for operation in ["restore", "backup"] {
            let folder = TestSupport.temporaryPath("lock-only")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/cipherdex.lock", contents: Data()))
            if operation == "restore" {
                _ = try Store.restore(TestSupport.configuration(destination, key: TestSupport.rawKey(1)), to: folder)
            } else {
                let store = try Store.open(TestSupport.configuration(destination, key: TestSupport.rawKey(1)))
                defer { store.close() }
                _ = try store.backup(to: folder)
            }
            let restored = try Store.open(TestSupport.configuration(folder, key: TestSupport.rawKey(1)))
            defer { restored.close() }
            XCTAssertEqual(
                try restored.collection("notes").get(id: "a")?.value.objectValue?["text"]?.stringValue,
                Self.secretText, operation)
            XCTAssertTrue(try restored.verify().isHealthy, operation)
        }
    }

    func testAsyncBackupCancelsAndLeavesNoDestination() async throws {
        let path = TestSupport.temporaryPath()
        _ = try Self.populate(path, key: TestSupport.rawKey(1))
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let destination = TestSupport.temporaryPath("backup")
        let summary = try await store.backupAsync(to: destination)
        XCTAssertEqual(summary.attachments, 3)
        let before = TestSupport.snapshot(destination)
        try store.collection("notes").insert(JSONValue.object([:]), id: "later")
        let started = Atomic<Bool>(false)
        let task = Task {
            try await store.backupAsync(to: destination) { _ in
                started.store(true, ordering: .releasing)
                usleep(20_000)
                return true
            }
        }
        while !started.load(ordering: .acquiring) { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("the backup finished despite the cancellation")
        } catch {
            XCTAssertTrue(error is CancellationError || error as? BackupError == .cancelled, "\(error)")
        }
        XCTAssertEqual(TestSupport.snapshot(destination), before, "the previous backup, byte for byte")
    }
}
