import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Each failed-open case built on disk; every one must leave every file byte-for-byte unchanged.
final class StoreOpenFailureTests: XCTestCase {
    private var path = ""

    override func setUp() {
        path = TestSupport.temporaryPath()
    }

    private func makeStore(key: KeyProvider?) throws {
        let store = try Store.open(TestSupport.configuration(path, key: key))
        try store.write { db in
            try db.execute("CREATE TABLE notes (body TEXT)")
            for index in 0..<100 { try db.execute("INSERT INTO notes VALUES (?)", [.text("note \(index)")]) }
        }
        store.close()
    }

    /// Opens with `key`, asserts the error case `name`, and that no file changed.
    private func assertOpenFails(
        _ name: String, key: KeyProvider?, at storePath: String? = nil, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        let target = storePath ?? path
        let before = TestSupport.snapshot(target)
        XCTAssertThrowsCase(name, try Store.open(TestSupport.configuration(target, key: key)), file: file, line: line)
        XCTAssertEqual(TestSupport.snapshot(target), before, "a failed open changed the store", file: file, line: line)
    }

    private var metadataPath: String { path + "/metadata.json" }
    private var databasePath: String { path + "/store.db" }

    /// Another unencrypted store's `store.db` (or its crash-left `-wal`) put in place of this
    /// one's is `storeCorrupted` naming both store ids, changing nothing: it opened, and showed
    /// the other store's documents as this one's. A database made before the id was kept gets it
    /// at its next writable open, and is told apart from then on.
    func testAnotherStoresDatabaseIsStoreCorrupted() throws {
        try makeStore(key: nil)
        let other = TestSupport.temporaryPath("other")
        let otherStore = try Store.open(TestSupport.configuration(other, key: nil))
        try otherStore.createCollection("theirs").insert(JSONValue.object([:]), id: "x")
        // Crash-left: the other store's log goes along, unread until the check has run.
        TestSupport.copyDirectory(other, to: other + "-copy")
        otherStore.close()
        let original = try Data(contentsOf: URL(fileURLWithPath: databasePath))
        for (database, log) in [(other + "/store.db", nil), (other + "-copy/store.db", other + "-copy/store.db-wal")] {
            try FileManager.default.removeItem(atPath: databasePath)
            try FileManager.default.copyItem(atPath: database, toPath: databasePath)
            if let log { try FileManager.default.copyItem(atPath: log, toPath: databasePath + "-wal") }
            assertOpenFails("storeCorrupted", key: nil)
            try? FileManager.default.removeItem(atPath: databasePath + "-wal")
            try? FileManager.default.removeItem(atPath: databasePath + "-shm")
        }
        try original.write(to: URL(fileURLWithPath: databasePath))
        // An older database without the id: kept at the next open, checked after it.
        var store = try Store.open(TestSupport.configuration(path, key: nil))
        try store.write { try $0.execute("DELETE FROM cipherdex_settings WHERE name = 'store.id'") }
        store.close()
        store = try Store.open(TestSupport.configuration(path, key: nil))
        let recorded = try store.read {
            try $0.scalar("SELECT value FROM cipherdex_settings WHERE name = 'store.id'")?.textValue
        }
        XCTAssertEqual(recorded, try store.info().storeID)
        store.close()
    }

    func testKeyRequired() throws {
        try makeStore(key: TestSupport.rawKey(1))
        assertOpenFails("keyRequired", key: nil)
    }

    func testKeyUnexpected() throws {
        try makeStore(key: nil)
        assertOpenFails("keyUnexpected", key: TestSupport.rawKey(1))
    }

    func testKeyInvalidForWrongRawKeyWrongPassphraseAndWrongKind() throws {
        try makeStore(key: TestSupport.rawKey(1))
        assertOpenFails("keyInvalid", key: TestSupport.rawKey(2))
        assertOpenFails("keyInvalid", key: TestSupport.passphrase("guess"))
        path = TestSupport.temporaryPath()
        try makeStore(key: TestSupport.passphrase("right"))
        assertOpenFails("keyInvalid", key: TestSupport.passphrase("wrong"))
    }

    func testUnsupportedSchemeWhenVersionRaisedCheckedFirst() throws {
        try makeStore(key: TestSupport.rawKey(1))
        var text = String(decoding: FileManager.default.contents(atPath: metadataPath)!, as: UTF8.self)
        text = text.replacingOccurrences(of: "\"formatVersion\" : 1", with: "\"formatVersion\" : 2")
        _ = FileManager.default.createFile(atPath: metadataPath, contents: Data(text.utf8))
        assertOpenFails("unsupportedScheme", key: TestSupport.rawKey(1))
        // Checked before the key: even without one, the version is the reason.
        assertOpenFails("unsupportedScheme", key: nil)
    }

    func testMetadataDeletedTruncatedOrBitFlipped() throws {
        try makeStore(key: TestSupport.rawKey(1))
        let original = FileManager.default.contents(atPath: metadataPath)!
        try FileManager.default.removeItem(atPath: metadataPath)
        assertOpenFails("metadataCorrupt", key: TestSupport.rawKey(1))

        _ = FileManager.default.createFile(atPath: metadataPath, contents: original.prefix(original.count / 2))
        assertOpenFails("metadataCorrupt", key: TestSupport.rawKey(1))
        _ = FileManager.default.createFile(atPath: metadataPath, contents: Data())
        assertOpenFails("metadataCorrupt", key: TestSupport.rawKey(1))

        // One bit flipped in every byte position of the keyslot's wrapped key, nonce and store id.
        let text = String(decoding: original, as: UTF8.self)
        for field in ["wrappedKey", "nonce", "storeID", "generation"] {
            let range = text.range(of: "\"\(field)\" : ")!
            let offset = text.utf8.distance(from: text.startIndex, to: range.upperBound) + 3
            _ = FileManager.default.createFile(atPath: metadataPath, contents: original)
            TestSupport.flipBit(metadataPath, at: offset, bit: 0x02)
            assertOpenFails("metadataCorrupt", key: TestSupport.rawKey(1))
        }
        _ = FileManager.default.createFile(atPath: metadataPath, contents: original)
        XCTAssertNoThrow(try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close())
    }

    func testMetadataTamperedWithValidChecksumFailsMAC() throws {
        try makeStore(key: TestSupport.rawKey(1))
        var metadata = try StoreMetadata.parse(Array(FileManager.default.contents(atPath: metadataPath)!))
        metadata.cipher?.kdfIterations = 1000
        // Recompute only the unkeyed checksum, as an attacker without the data key could.
        metadata.checksum = nil
        metadata.checksum = Base64Bytes(Sodium.checksum(try metadata.canonicalBytes(includingMAC: true)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        _ = FileManager.default.createFile(atPath: metadataPath, contents: try encoder.encode(metadata))
        assertOpenFails("metadataCorrupt", key: TestSupport.rawKey(1))
    }

    /// Settings edited without the key (the checksum recomputed): a malformed value is
    /// `metadataCorrupt` naming it; an algorithm this build does not know is `unsupportedScheme`,
    /// saying so (both read "format version 1; this build supports up to 1" before).
    func testMalformedOrUnknownSettingsSayWhich() throws {
        try makeStore(key: TestSupport.rawKey(1))
        let original = try StoreMetadata.parse(Array(FileManager.default.contents(atPath: metadataPath)!))
        func write(_ edit: (inout StoreMetadata) -> Void) throws {
            var metadata = original
            edit(&metadata)
            metadata.checksum = nil
            metadata.checksum = Base64Bytes(Sodium.checksum(try metadata.canonicalBytes(includingMAC: true)))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            _ = FileManager.default.createFile(atPath: metadataPath, contents: try encoder.encode(metadata))
        }
        func openError() -> EncryptionError? {
            do {
                try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
                return nil
            } catch {
                return error as? EncryptionError
            }
        }
        try write { $0.keyslots[0].nonce = Base64Bytes([1, 2, 3]) }
        XCTAssertEqual(openError(), .metadataCorrupt(reason: "keyslot 1's nonce is 3 bytes, not 24"))
        try write { $0.cipher?.pageSize = 3 }
        XCTAssertEqual(
            openError(), .metadataCorrupt(reason: "cipher pageSize 3 is not a power of two from 1024 to 65536"))
        for edit: (inout StoreMetadata) -> Void in [
            { $0.keyslots[0].aead = "aes" }, { $0.cipher?.cipher = "aes-128-cbc" },
        ] {
            try write(edit)
            let error = openError()
            XCTAssertEqual(error?.name, "unsupportedScheme")
            XCTAssertTrue(
                error?.errorDescription?.contains("algorithm this build does not know") == true,
                "\(String(describing: error))")
        }
    }

    /// A member named twice is refused: this parser read the first value where others (Python's
    /// `json`, `tools/cipherdex-recover`) read the last.
    func testAMemberNamedTwiceIsMetadataCorrupt() throws {
        try makeStore(key: TestSupport.rawKey(1))
        let text = String(decoding: FileManager.default.contents(atPath: metadataPath)!, as: UTF8.self)
        let brace = try XCTUnwrap(text.firstIndex(of: "{"))
        let doubled = String(text[...brace]) + "\n  \"formatVersion\" : 1," + String(text[text.index(after: brace)...])
        _ = FileManager.default.createFile(atPath: metadataPath, contents: Data(doubled.utf8))
        assertOpenFails("metadataCorrupt", key: TestSupport.rawKey(1))
        do {
            try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        } catch let error as EncryptionError {
            XCTAssertTrue(error.errorDescription?.contains("names a member twice") == true, "\(error)")
        }
    }

    func testDatabaseDeletedIsStoreCorrupted() throws {
        try makeStore(key: TestSupport.rawKey(1))
        try FileManager.default.removeItem(atPath: databasePath)
        assertOpenFails("storeCorrupted", key: TestSupport.rawKey(1))
    }

    func testDatabaseBytesFlippedIsStoreCorruptedNotKeyInvalid() throws {
        try makeStore(key: TestSupport.rawKey(1))
        for offset in [0, 100, 2000] {
            let original = FileManager.default.contents(atPath: databasePath)!
            TestSupport.flipBit(databasePath, at: offset)
            assertOpenFails("storeCorrupted", key: TestSupport.rawKey(1))
            assertOpenFails("keyInvalid", key: TestSupport.rawKey(9))
            _ = FileManager.default.createFile(atPath: databasePath, contents: original)
        }
        XCTAssertNoThrow(try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close())
    }

    func testPlaintextDatabaseDamagedIsStoreCorrupted() throws {
        try makeStore(key: nil)
        _ = FileManager.default.createFile(atPath: databasePath, contents: Data(repeating: 0x41, count: 8192))
        assertOpenFails("storeCorrupted", key: nil)
    }

    func testCrashLeftWALWithWrongKeyChangesNothing() throws {
        // Capture the files of a store while its writer is mid-life: that is what a crash leaves.
        let live = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try live.write { db in
            try db.execute("CREATE TABLE notes (body TEXT)")
            for index in 0..<300 { try db.execute("INSERT INTO notes VALUES (?)", [.text("note \(index)")]) }
        }
        let crashed = TestSupport.temporaryPath("crashed")
        TestSupport.copyDirectory(path, to: crashed)
        live.close()
        XCTAssertGreaterThan(FileSystem.size(crashed + "/store.db-wal") ?? 0, 0, "the copy must hold a WAL")
        assertOpenFails("keyInvalid", key: TestSupport.rawKey(2), at: crashed)
        assertOpenFails("keyRequired", key: nil, at: crashed)
        // The right key recovers every committed row.
        let recovered = try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(1)))
        XCTAssertEqual(try recovered.read { try $0.scalar("SELECT count(*) FROM notes")?.integerValue }, 300)
    }

    func testStoreLockedWhileOpen() throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        assertOpenFails("storeLocked", key: TestSupport.rawKey(1))
        XCTAssertThrowsCase("storeLocked", try Store.delete(at: path))
        store.close()
        XCTAssertNoThrow(try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close())
    }

    /// A lock another open file description holds for a moment (as a helper that `posix_spawn`
    /// made holds the killed process's descriptors until its `exec`) is waited for: the open
    /// succeeds once it goes. One held past `StoreLock.contentionWait` is still `storeLocked`.
    func testABrieflyHeldLockIsWaitedFor() throws {
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        let holder = try FileDescriptor(path: path + "/cipherdex.lock", flags: O_RDWR, mode: 0o600)
        XCTAssertTrue(try holder.tryLockExclusive())
        let released = Thread {
            usleep(30_000)
            holder.unlock()
        }
        released.start()
        XCTAssertNoThrow(try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close())
        XCTAssertTrue(try holder.tryLockExclusive())
        let started = ContinuousClock.now
        assertOpenFails("storeLocked", key: TestSupport.rawKey(1))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, StoreLock.contentionWait)
        holder.unlock()
    }

    func testNotAStore() throws {
        let filePath = TestSupport.temporaryPath("file")
        _ = FileManager.default.createFile(atPath: filePath, contents: Data("hello".utf8))
        assertOpenFails("notAStore", key: nil, at: filePath)
        let folder = TestSupport.temporaryPath("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/notes.txt", contents: Data("mine".utf8))
        assertOpenFails("notAStore", key: TestSupport.rawKey(1), at: folder)
        var noCreate = TestSupport.configuration(TestSupport.temporaryPath(), key: nil)
        noCreate.createIfMissing = false
        XCTAssertThrowsCase("notAStore", try Store.open(noCreate))
    }

    /// An open of an older database whose store-id record fails (a full disk there, here a
    /// trigger) rolls back its migrations too: every file is as it was (the migrations were
    /// committed and checkpointed into `store.db`, and the open said nothing was changed).
    func testAnOpenWhoseStoreIDRecordFailsLeavesTheOlderDatabaseUnchanged() throws {
        try makeStore(key: nil)
        let store = try Store.open(TestSupport.configuration(path, key: nil))
        try store.write { db in
            try db.execute("DELETE FROM cipherdex_settings WHERE name = 'store.id'")
            try db.execute("DELETE FROM cipherdex_schema WHERE version = (SELECT max(version) FROM cipherdex_schema)")
            try db.execute(
                """
                CREATE TRIGGER refuse_store_id BEFORE INSERT ON cipherdex_settings
                BEGIN SELECT RAISE(FAIL, 'no room'); END
                """)
        }
        store.close()
        let before = TestSupport.snapshot(path)
        XCTAssertThrowsError(try Store.open(TestSupport.configuration(path, key: nil)))
        XCTAssertEqual(TestSupport.snapshot(path), before)
    }
}
