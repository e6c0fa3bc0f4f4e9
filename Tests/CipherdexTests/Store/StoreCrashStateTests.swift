import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Stores in the states a crash or a full disk leaves: killed mid-checkpoint, damaged
/// write-ahead log. Each opens with every committed write, or fails changing nothing.
final class StoreCrashStateTests: XCTestCase {
    private var path = ""
    private let pageSize = CipherSettings.default.pageSize

    override func setUp() {
        path = TestSupport.temporaryPath()
    }

    /// A store whose write-ahead log holds committed documents that the main file does not: the
    /// files as a crash leaves them (captured while the writer is open).
    private func crashLeftStore(documents: Int, key: KeyProvider?) throws -> String {
        let live = try Store.open(TestSupport.configuration(path, key: key))
        let notes = try live.createCollection("notes")
        try live.transaction { tx in
            for index in 0..<documents {
                try tx.collection("notes").insert(
                    JSONValue.object([
                        "n": .string("\(index)"), "body": .string(String(repeating: "note \(index) ", count: 40)),
                    ]),
                    id: "note-\(index)")
            }
        }
        _ = notes
        let crashed = TestSupport.temporaryPath("crashed")
        TestSupport.copyDirectory(path, to: crashed)
        live.close()
        XCTAssertGreaterThan(FileSystem.size(crashed + "/store.db-wal") ?? 0, UInt64(pageSize * 8))
        return crashed
    }

    /// The latest frame of each page in a WAL, by page number (every frame is committed here).
    private func walPages(_ walPath: String) -> [(page: Int, offset: Int)] {
        let wal = Array(FileManager.default.contents(atPath: walPath)!)
        var latest: [Int: Int] = [:]
        var offset = 32
        while offset + 24 + pageSize <= wal.count {
            let page = wal[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            latest[page] = offset + 24
            offset += 24 + pageSize
        }
        return latest.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Does what a checkpoint killed part-way does: copies the first `fraction` of the log's
    /// pages, in page order, into the main file, and leaves the log in place.
    private func tearCheckpoint(_ store: String, fraction: Double) throws {
        let wal = Array(FileManager.default.contents(atPath: store + "/store.db-wal")!)
        let pages = walPages(store + "/store.db-wal")
        let handle = FileHandle(forWritingAtPath: store + "/store.db")!
        for (page, offset) in pages.prefix(Int(Double(pages.count) * fraction)) {
            try handle.seek(toOffset: UInt64((page - 1) * pageSize))
            handle.write(Data(wal[offset..<(offset + pageSize)]))
        }
        try handle.close()
    }

    private func assertAllNotesPresent(_ store: Store, count: Int, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let notes = try store.collection("notes")
        XCTAssertEqual(try notes.count(), count, file: file, line: line)
        for index in [0, count / 2, count - 1] {
            XCTAssertEqual(try notes.get(id: "note-\(index)")?[path: "n"], .string("\(index)"), file: file, line: line)
        }
        XCTAssertEqual(try store.verify().problems, [], file: file, line: line)
    }

    func testStoreKilledMidCheckpointOpensWithEveryCommittedWrite() throws {
        for fraction in [0.0, 0.3, 0.6, 0.9] {
            setUp()
            let crashed = try crashLeftStore(documents: 600, key: TestSupport.rawKey(1))
            try tearCheckpoint(crashed, fraction: fraction)
            // A wrong key and no key still change nothing.
            let before = TestSupport.snapshot(crashed)
            XCTAssertThrowsCase(
                "keyInvalid", try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(2))))
            XCTAssertThrowsCase("keyRequired", try Store.open(TestSupport.configuration(crashed, key: nil)))
            XCTAssertEqual(TestSupport.snapshot(crashed), before)
            let store = try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(1)))
            try assertAllNotesPresent(store, count: 600)
            store.close()
        }
    }

    func testUnencryptedStoreKilledMidCheckpointOpens() throws {
        let crashed = try crashLeftStore(documents: 600, key: nil)
        try tearCheckpoint(crashed, fraction: 0.5)
        let store = try Store.open(TestSupport.configuration(crashed, key: nil))
        try assertAllNotesPresent(store, count: 600)
        store.close()
    }

    func testDamagedLogOverATornMainFileFailsAndLeavesEveryByte() throws {
        let crashed = try crashLeftStore(documents: 600, key: TestSupport.rawKey(1))
        try tearCheckpoint(crashed, fraction: 0.5)
        // Damage the log's first frame: its checksum fails, so the log holds nothing, and the
        // main file alone is mid-checkpoint. The open must fail and put -shm back as it was.
        TestSupport.flipBit(crashed + "/store.db-wal", at: 32 + 24 + 100)
        for withIndex in [true, false] {
            if !withIndex { try? FileManager.default.removeItem(atPath: crashed + "/store.db-shm") }
            let before = TestSupport.snapshot(crashed)
            XCTAssertThrowsCase(
                "storeCorrupted", try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(1))))
            XCTAssertEqual(TestSupport.snapshot(crashed), before, "a failed open changed the store")
        }
    }

    /// A store whose log holds `transactions` committed transactions of 50 documents each (and
    /// the collection's), as a crash leaves it; the byte offsets of the log's commit frames.
    private func crashLeftStore(transactions: Int, key: KeyProvider? = TestSupport.rawKey(1)) throws -> (
        store: String, commits: [Int]
    ) {
        let live = try Store.open(TestSupport.configuration(path, key: key))
        _ = try live.createCollection("notes")
        for transaction in 0..<transactions {
            try live.transaction { tx in
                for index in (transaction * 50)..<(transaction * 50 + 50) {
                    try tx.collection("notes").insert(
                        JSONValue.object([
                            "n": .string("\(index)"), "body": .string(String(repeating: "x", count: 300)),
                        ]),
                        id: "note-\(index)")
                }
            }
        }
        let crashed = TestSupport.temporaryPath("crashed")
        TestSupport.copyDirectory(path, to: crashed)
        live.close()
        let wal = Array(FileManager.default.contents(atPath: crashed + "/store.db-wal")!)
        var commits: [Int] = []
        var offset = 32
        while offset + 24 + pageSize <= wal.count {
            if wal[(offset + 4)..<(offset + 8)] != [0, 0, 0, 0] { commits.append(offset) }
            offset += 24 + pageSize
        }
        return (crashed, commits)
    }

    /// A frame damaged after the crash, with committed transactions after it: SQLite's recovery
    /// would end the log there and drop them. The open fails naming the log and the frame's
    /// byte, changing nothing; the log cut there (what the error offers) opens with the
    /// transactions before it.
    func testADamagedLogFrameWithCommitsAfterItFailsAndChangesNothing() throws {
        let (crashed, commits) = try crashLeftStore(transactions: 4)
        XCTAssertGreaterThanOrEqual(commits.count, 5, "the collection's transaction and four of documents")
        // The first frame of the second document transaction (after the second commit).
        let damaged = commits[1] + 24 + pageSize
        TestSupport.flipBit(crashed + "/store.db-wal", at: damaged + 24 + 200)
        let before = TestSupport.snapshot(crashed)
        for _ in 0..<2 {
            do {
                _ = try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(1)))
                XCTFail("a damaged log opened")
            } catch let error as StoreError {
                XCTAssertEqual(error.name, "storeCorrupted", "\(error)")
                let text = error.errorDescription ?? ""
                XCTAssertTrue(text.contains(crashed + "/store.db-wal"), text)
                XCTAssertTrue(
                    text.contains("(byte \(damaged))") && text.contains("truncate the log to \(damaged) bytes"), text)
                XCTAssertTrue(text.contains("and the 2 after it"), text)
            }
            XCTAssertEqual(TestSupport.snapshot(crashed), before, "a failed open changed the store")
        }
        XCTAssertEqual(truncate(crashed + "/store.db-wal", off_t(damaged)), 0)
        let store = try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(1)))
        try assertAllNotesPresent(store, count: 50)
        store.close()
    }

    /// A bit flipped in the log's header (SQLite would ignore the whole log, and drop every
    /// transaction in it) fails the open, changing nothing; without the log the store opens.
    func testADamagedLogHeaderFailsAndChangesNothing() throws {
        for key in [TestSupport.rawKey(1), nil] {
            // A bit flipped at a byte, or bytes zeroed (the salts and checksum, the whole header).
            let damages: [(String) throws -> Void] =
                [0, 10, 17, 29].map { byte in { log in TestSupport.flipBit(log, at: byte) } }
                + [16..<32, 0..<32].map { range in
                    { log in
                        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: log))
                        try handle.seek(toOffset: UInt64(range.lowerBound))
                        handle.write(Data(count: range.count))
                        try handle.close()
                    }
                }
            for damage in damages {
                path = TestSupport.temporaryPath()
                let (crashed, commits) = try crashLeftStore(transactions: 2, key: key)
                try damage(crashed + "/store.db-wal")
                let before = TestSupport.snapshot(crashed)
                do {
                    _ = try Store.open(TestSupport.configuration(crashed, key: key))
                    XCTFail("a log with a damaged header opened")
                } catch let error as StoreError {
                    XCTAssertEqual(error.name, "storeCorrupted", "\(error)")
                    let text = error.errorDescription ?? ""
                    XCTAssertTrue(text.contains("the header of the write-ahead log \(crashed)/store.db-wal"), text)
                    XCTAssertTrue(text.contains("the \(commits.count) committed transactions"), text)
                }
                XCTAssertEqual(TestSupport.snapshot(crashed), before, "a failed open changed the store")
                try FileManager.default.removeItem(atPath: crashed + "/store.db-wal")
                try Store.open(TestSupport.configuration(crashed, key: key)).close()
            }
        }
    }

    /// A database file cut short after a crash, with pages missing that the log does not hold:
    /// the open fails naming it and changes nothing (the writer would have copied the log into
    /// the damaged file and removed the log before finding the damage).
    func testADatabaseCutShortUnderALiveLogFailsAndChangesNothing() throws {
        let (crashed, _) = try crashLeftStore(transactions: 1)
        // Documents of a first open's transaction checkpointed into the main file, then more in the log.
        let size = FileSystem.size(crashed + "/store.db") ?? 0
        XCTAssertGreaterThan(size, UInt64(4 * pageSize))
        XCTAssertEqual(truncate(crashed + "/store.db", off_t(size / 2 / UInt64(pageSize) * UInt64(pageSize))), 0)
        let before = TestSupport.snapshot(crashed)
        XCTAssertThrowsError(try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(1)))) { error in
            XCTAssertEqual((error as? StoreError)?.name, "storeCorrupted", "\(error)")
            let text = (error as? StoreError)?.errorDescription ?? ""
            XCTAssertTrue(text.contains("the database file \(crashed)/store.db is cut short"), text)
        }
        XCTAssertEqual(TestSupport.snapshot(crashed), before, "a failed open changed the store")
    }

    /// A rollback journal beside a database in write-ahead-log mode (Cipherdex writes none) is
    /// damage naming the journal, not a permission problem, and nothing changes.
    func testAStrayRollbackJournalBesideALiveLogIsNamed() throws {
        let (crashed, _) = try crashLeftStore(transactions: 1)
        let junk = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        XCTAssertTrue(FileManager.default.createFile(atPath: crashed + "/store.db-journal", contents: Data(junk)))
        let before = TestSupport.snapshot(crashed)
        XCTAssertThrowsError(try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(1)))) { error in
            let text = (error as? StoreError)?.errorDescription ?? "\(error)"
            XCTAssertEqual((error as? StoreError)?.name, "storeCorrupted", text)
            XCTAssertTrue(text.contains("a rollback journal \(crashed)/store.db-journal is beside the database"), text)
        }
        XCTAssertEqual(TestSupport.snapshot(crashed), before, "a failed open changed the store")
    }

    /// Another store's write-ahead log beside a database (the same key): the error names the
    /// database and the log, and nothing changes.
    func testAnotherStoresLogIsNamed() throws {
        let (other, _) = try crashLeftStore(transactions: 1)
        let clean = TestSupport.temporaryPath("clean")
        try Store.open(TestSupport.configuration(clean, key: TestSupport.rawKey(1))).close()
        try FileManager.default.copyItem(atPath: other + "/store.db-wal", toPath: clean + "/store.db-wal")
        let before = TestSupport.snapshot(clean)
        XCTAssertThrowsError(try Store.open(TestSupport.configuration(clean, key: TestSupport.rawKey(1)))) { error in
            let text = (error as? StoreError)?.errorDescription ?? "\(error)"
            XCTAssertTrue(text.hasPrefix("the store is damaged (not a wrong key): "), text)
            XCTAssertTrue(text.contains("\(clean)/store.db (or its write-ahead log \(clean)/store.db-wal)"), text)
        }
        XCTAssertEqual(TestSupport.snapshot(clean), before, "a failed open changed the store")
    }

    /// Damage in the last transaction cannot be told from a torn write: the store opens without
    /// that transaction, with every one before it, as SQLite's recovery leaves it.
    func testDamageInTheLastTransactionOpensWithTheOnesBefore() throws {
        let (crashed, commits) = try crashLeftStore(transactions: 3)
        TestSupport.flipBit(crashed + "/store.db-wal", at: commits[commits.count - 2] + 24 + pageSize + 24 + 10)
        let store = try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(1)))
        try assertAllNotesPresent(store, count: 100)
        store.close()
    }

    /// A crash-left log recording a newer build's migration: `unsupportedScheme`, and the
    /// `-shm` the schema probe rebuilt is put back (it was created or rewritten: upgrade audit 28).
    func testANewerBuildsCrashLeftStoreIsRefusedChangingNothing() throws {
        let live = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try live.write { db in
            try db.execute("INSERT INTO cipherdex_schema (version, name) VALUES (998, 'a newer build')")
        }
        let crashed = TestSupport.temporaryPath("crashed")
        TestSupport.copyDirectory(path, to: crashed)
        live.close()
        try? FileManager.default.removeItem(atPath: crashed + "/store.db-shm")
        XCTAssertGreaterThan(FileSystem.size(crashed + "/store.db-wal") ?? 0, 0)
        let before = TestSupport.snapshot(crashed)
        XCTAssertThrowsError(try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(1)))) { error in
            guard case EncryptionError.unsupportedScheme(let found, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(found, 998)
            XCTAssertTrue(error.localizedDescription.contains("format or schema version is 998"), "\(error)")
        }
        XCTAssertEqual(TestSupport.snapshot(crashed), before)
    }

    /// A crash-left log whose database records no schema is `storeCorrupted`, and the schema
    /// probe's `-shm` is put back too (review 28b: it was created or rewritten).
    func testACrashLeftStoreWithoutASchemaIsRefusedChangingNothing() throws {
        for removeSHM in [true, false] {
            let original = TestSupport.temporaryPath()
            let live = try Store.open(TestSupport.configuration(original, key: TestSupport.rawKey(1)))
            try live.write { db in try db.execute("DROP TABLE cipherdex_schema") }
            let crashed = TestSupport.temporaryPath("crashed")
            TestSupport.copyDirectory(original, to: crashed)
            live.close()
            if removeSHM { try? FileManager.default.removeItem(atPath: crashed + "/store.db-shm") }
            let before = TestSupport.snapshot(crashed)
            XCTAssertThrowsError(try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(1)))) {
                XCTAssertEqual(($0 as? StoreError)?.name, "storeCorrupted", "\($0)")
            }
            XCTAssertEqual(TestSupport.snapshot(crashed), before, "without -shm: \(removeSHM)")
        }
    }
}
