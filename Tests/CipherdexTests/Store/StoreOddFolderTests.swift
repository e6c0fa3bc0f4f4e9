import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// The rest of "every kind of file in place of every store file": `attachments/` and `staging/`
/// that are not directories, an empty or huge metadata file, a huge database, and a store
/// directory reached through a symbolic link (a normal deployment, which works).
final class StoreOddFolderTests: XCTestCase {
    private var path = ""

    override func setUp() {
        path = TestSupport.temporaryPath()
    }

    private func makeStore() throws -> String {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        try store.createCollection("notes").insert(JSONValue.object(["body": .string("kept")]), id: "one")
        return try store.addAttachment(Data("attachment body".utf8)).id
    }

    /// Opens, expects the case `name` within a second, and no change to any file.
    private func assertOpenFails(
        _ name: String, naming subject: String? = nil, key: KeyProvider? = TestSupport.rawKey(1),
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let before = snapshot()
        let started = Date()
        do {
            _ = try Store.open(TestSupport.configuration(path, key: key))
            XCTFail("expected \(name), the store opened", file: file, line: line)
        } catch {
            let named = (error as? StoreError)?.name ?? (error as? EncryptionError)?.name
            XCTAssertEqual(named, name, "\(error)", file: file, line: line)
            if let subject {
                let message = (error as? LocalizedError)?.errorDescription ?? ""
                XCTAssertTrue(message.contains(subject), "\(message) names \(subject)", file: file, line: line)
            }
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "the error took too long", file: file, line: line)
        XCTAssertEqual(snapshot(), before, "a failed open changed the store", file: file, line: line)
    }

    /// Every file's bytes, except that a file over 16 MiB (a sparse giant) counts by its size
    /// and modification time: reading it would take minutes.
    private func snapshot() -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for name in FileSystem.contents(of: path) where (FileKind.of(path + "/" + name).size ?? 0) > 16 << 20 {
            var info = stat()
            _ = stat(path + "/" + name, &info)
            result[name] = Array("\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)".utf8)
        }
        let big = Set(result.keys)
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return result }
        while let relative = enumerator.nextObject() as? String {
            if big.contains(relative) { continue }
            let full = path + "/" + relative
            result[relative] =
                FileKind.of(full).isRegular ? Array(FileManager.default.contents(atPath: full) ?? Data()) : []
        }
        return result
    }

    private func assertOpensWithEverything(
        _ id: String, at target: String? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let store = try Store.open(TestSupport.configuration(target ?? path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        XCTAssertEqual(
            try store.collection("notes").get(id: "one")?[path: "body"], .string("kept"), file: file, line: line)
        XCTAssertEqual(try store.attachmentData(id), Data("attachment body".utf8), file: file, line: line)
        XCTAssertEqual(try store.verify().problems, [], file: file, line: line)
    }

    func testAttachmentFoldersThatAreNotDirectoriesAreATypedErrorAndChangeNothing() throws {
        let id = try makeStore()
        let elsewhere = TestSupport.temporaryPath("elsewhere")
        _ = FileManager.default.createFile(atPath: elsewhere, contents: Data("a file".utf8))
        for folder in ["attachments", "staging"] {
            let target = path + "/" + folder
            let moved = path + "/../" + folder + "-saved"
            if FileSystem.exists(target) { try FileManager.default.moveItem(atPath: target, toPath: moved) }
            for kind in ["file", "fifo", "symlink to a file", "dangling symlink", "device"] {
                switch kind {
                case "file": XCTAssertTrue(FileManager.default.createFile(atPath: target, contents: Data([1])))
                case "fifo": XCTAssertEqual(mkfifo(target, 0o600), 0)
                case "symlink to a file": XCTAssertEqual(symlink(elsewhere, target), 0)
                case "dangling symlink": XCTAssertEqual(symlink(elsewhere + "-missing", target), 0)
                default: XCTAssertEqual(mknod(target, S_IFCHR | 0o600, dev_t((1 << 8) | 5)), 0)
                }
                assertOpenFails("storeCorrupted", naming: target)
                assertOpenFails("keyInvalid", key: TestSupport.rawKey(2))
                try FileManager.default.removeItem(atPath: target)
            }
            if FileSystem.exists(moved) { try FileManager.default.moveItem(atPath: moved, toPath: target) }
        }
        try assertOpensWithEverything(id)
    }

    /// A folder holding only folders named as a store's (`attachments/`, `staging/`) but nothing
    /// a create of ours makes first (its lock file) is someone else's: never adopted, never
    /// emptied, whichever way the create is reached.
    func testAFolderWithOnlyStoreNamedFoldersIsNotAdopted() throws {
        try FileManager.default.createDirectory(atPath: path + "/attachments", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: path + "/staging", withIntermediateDirectories: true)
        try Data("user file".utf8).write(to: URL(fileURLWithPath: path + "/attachments/report.pdf"))
        try Data("user notes".utf8).write(to: URL(fileURLWithPath: path + "/staging/notes.txt"))
        assertOpenFails("notAStore", naming: path)
        let before = snapshot()
        XCTAssertThrowsCase(
            "notAStore",
            try Store.create(
                layout: StoreLayout(directory: path),
                configuration: TestSupport.configuration(path, key: TestSupport.rawKey(1))))
        XCTAssertEqual(snapshot(), before)
        XCTAssertThrowsCase("notAStore", try Store.delete(at: path))
        XCTAssertEqual(snapshot(), before)
    }

    /// What a killed create left (its lock file first, then the folders) is ours: the next
    /// create removes it and makes the store.
    func testWhatAKilledCreateLeftIsRemovedByTheNextCreate() throws {
        // Killed while writing its metadata, after finishing an interrupted delete (no lock file).
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("partial".utf8).write(to: URL(fileURLWithPath: path + "/store.db.creating"))
        try Data("{".utf8).write(to: URL(fileURLWithPath: path + "/metadata.json.tmp-1234"))
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)

        try FileManager.default.createDirectory(atPath: path + "/staging", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: path + "/cipherdex.lock"))
        let staged = path + "/staging/" + String(repeating: "0123", count: 8)
        try Data("partial".utf8).write(to: URL(fileURLWithPath: staged))
        try Data("partial".utf8).write(to: URL(fileURLWithPath: path + "/store.db.creating"))
        _ = try makeStore()
        XCTAssertFalse(FileSystem.exists(staged))
        XCTAssertFalse(FileSystem.exists(path + "/store.db.creating"))
    }

    /// Only files named as staged attachments are the store's: a folder, a file of another name
    /// or a link put in `staging/` (a backup made there, say) is left as it is, and the store
    /// opens (the open failed on a folder, after deleting the files beside it).
    func testForeignEntriesInStagingAreLeftAndTheStoreOpens() throws {
        let id = try makeStore()
        let staging = path + "/staging"
        try FileManager.default.createDirectory(atPath: staging + "/attachments", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: staging + "/metadata.json", contents: Data("{}".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: staging + "/store.db", contents: Data([1, 2])))
        XCTAssertEqual(symlink("/nonexistent", staging + "/" + String(repeating: "a", count: 32)), 0)
        XCTAssertEqual(mkdir(staging + "/" + String(repeating: "b", count: 32), 0o700), 0)
        let unneeded = staging + "/" + String(repeating: "c", count: 32)
        XCTAssertTrue(FileManager.default.createFile(atPath: unneeded, contents: Data([3])))
        for _ in 0..<2 { try assertOpensWithEverything(id) }
        XCTAssertEqual(
            Set(try FileManager.default.contentsOfDirectory(atPath: staging)),
            [
                "attachments", "metadata.json", "store.db", String(repeating: "a", count: 32),
                String(repeating: "b", count: 32),
            ],
            "only the unreferenced staged file named as ours is removed")
        // Opens that find only such entries there write nothing to the database.
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        let database = FileManager.default.contents(atPath: path + "/store.db")
        for _ in 0..<2 { try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close() }
        XCTAssertEqual(FileManager.default.contents(atPath: path + "/store.db"), database)
    }

    func testAttachmentsFolderLinkedToAnotherDiskWorks() throws {
        let id = try makeStore()
        let elsewhere = TestSupport.temporaryPath("attachments-elsewhere")
        try FileManager.default.moveItem(atPath: path + "/attachments", toPath: elsewhere)
        XCTAssertEqual(symlink(elsewhere, path + "/attachments"), 0)
        try assertOpensWithEverything(id)
    }

    func testEmptyOrHugeMetadataIsMetadataCorruptAtOnce() throws {
        let id = try makeStore()
        let metadata = path + "/metadata.json"
        let saved = try XCTUnwrap(FileManager.default.contents(atPath: metadata))
        XCTAssertTrue(FileManager.default.createFile(atPath: metadata, contents: nil))
        assertOpenFails("metadataCorrupt")
        XCTAssertEqual(truncate(metadata, 10 << 30), 0)
        assertOpenFails("metadataCorrupt", naming: "bytes")
        XCTAssertTrue(FileManager.default.createFile(atPath: metadata, contents: saved))
        try assertOpensWithEverything(id)
    }

    func testHugeSparseDatabaseIsStoreCorruptedAtOnce() throws {
        let id = try makeStore()
        let database = path + "/store.db"
        let saved = try XCTUnwrap(FileManager.default.contents(atPath: database))
        XCTAssertTrue(FileManager.default.createFile(atPath: database, contents: nil))
        XCTAssertEqual(truncate(database, 10 << 30), 0)
        assertOpenFails("storeCorrupted", naming: "database")
        assertOpenFails("keyInvalid", key: TestSupport.rawKey(2))
        XCTAssertTrue(FileManager.default.createFile(atPath: database, contents: saved))
        try assertOpensWithEverything(id)
    }

    func testAStoreDirectoryReachedThroughASymbolicLinkWorks() throws {
        let id = try makeStore()
        let link = TestSupport.temporaryPath("linked-store")
        XCTAssertEqual(symlink(path, link), 0)
        try assertOpensWithEverything(id, at: link)
        let store = try Store.open(TestSupport.configuration(link, key: TestSupport.rawKey(1)))
        _ = try store.addAttachment(Data("through the link".utf8))
        store.close()
        // The link itself is left alone; what it points to keeps owner-only modes.
        var info = stat()
        XCTAssertEqual(lstat(link, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFLNK)
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o700)
        XCTAssertEqual(
            try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).attachmentTokens().count, 2)
    }
}

extension StoreOddFolderTests {
    func testHugeSparseIndexIsStoreCorruptedAtOnceAndAHugeEmptyLogHoldsNothing() throws {
        let id = try makeStore()
        let index = path + "/store.db-shm"
        XCTAssertTrue(FileManager.default.createFile(atPath: index, contents: nil))
        XCTAssertEqual(truncate(index, 10 << 30), 0)
        assertOpenFails("storeCorrupted", naming: index)
        try FileManager.default.removeItem(atPath: index)
        // A log of zeros has no valid header, so no committed frame: the store opens as it was.
        let log = path + "/store.db-wal"
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil))
        XCTAssertEqual(truncate(log, 10 << 30), 0)
        try assertOpensWithEverything(id)
    }

    /// A store path that is a link to nothing is refused saying so, and nothing is created
    /// where it leads (file-system audit 7a: "not a directory").
    func testAStorePathThatIsALinkToNothingSaysSo() throws {
        let target = TestSupport.temporaryPath("nowhere")
        XCTAssertEqual(symlink(target, path), 0)
        defer { unlink(path) }
        XCTAssertThrowsError(try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))) { error in
            XCTAssertEqual(
                error as? StoreError,
                .notAStore(path: path, reason: "it is a symbolic link to \(target), which does not exist"))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
    }
}
