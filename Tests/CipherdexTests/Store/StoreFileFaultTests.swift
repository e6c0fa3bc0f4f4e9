import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// Odd files, permissions, a full disk and leftovers of killed runs: each gets a typed error
/// naming the path at once and changes nothing, or opens with every committed item.
final class StoreFileFaultTests: XCTestCase {
    private var path = ""
    private var mounts: [String] = []

    override func setUp() {
        path = TestSupport.temporaryPath()
    }

    override func tearDown() {
        for point in mounts.reversed() { Mounts.unmount(point) }
        mounts = []
    }

    private func makeStore(at target: String? = nil, key: KeyProvider? = TestSupport.rawKey(1)) throws {
        let store = try Store.open(TestSupport.configuration(target ?? path, key: key))
        try store.createCollection("notes").insert(JSONValue.object(["body": .string("kept")]), id: "one")
        _ = try store.addAttachment(Data("attachment body".utf8), contentType: "text/plain")
        store.close()
    }

    /// Opens, expects the case `name` within a second, and no change to any file.
    private func assertOpenFails(
        _ name: String, at target: String? = nil, key: KeyProvider? = TestSupport.rawKey(1),
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let directory = target ?? path
        let before = TestSupport.snapshot(directory)
        let started = Date()
        XCTAssertThrowsCase(
            name, try Store.open(TestSupport.configuration(directory, key: key)), file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "the error took too long", file: file, line: line)
        XCTAssertEqual(
            TestSupport.snapshot(directory), before, "a failed open changed the store", file: file, line: line)
    }

    private func assertOpensWithEverything(at target: String? = nil, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let store = try Store.open(TestSupport.configuration(target ?? path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        XCTAssertEqual(
            try store.collection("notes").get(id: "one")?[path: "body"], .string("kept"), file: file, line: line)
        XCTAssertEqual(try store.attachmentTokens().count, 1, file: file, line: line)
        XCTAssertEqual(try store.verify().problems, [], file: file, line: line)
    }

    // MARK: Odd files in place of store files

    func testEveryKindOfFileInPlaceOfTheMetadataOrDatabaseIsATypedErrorAtOnce() throws {
        try makeStore()
        let cases: [(file: String, expected: String)] = [
            ("metadata.json", "metadataCorrupt"), ("store.db", "storeCorrupted"), ("store.db-wal", "storeCorrupted"),
            ("store.db-shm", "storeCorrupted"),
        ]
        for (name, expected) in cases {
            let target = path + "/" + name
            let saved = FileManager.default.contents(atPath: target)
            try? FileManager.default.removeItem(atPath: target)
            for kind in ["fifo", "directory", "symlink", "device"] {
                switch kind {
                case "fifo": XCTAssertEqual(mkfifo(target, 0o600), 0)
                case "directory":
                    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
                case "symlink": XCTAssertEqual(symlink("/dev/zero", target), 0)
                default: XCTAssertEqual(mknod(target, S_IFCHR | 0o600, dev_t((1 << 8) | 5)), 0)
                }
                assertOpenFails(expected, key: TestSupport.rawKey(1))
                assertOpenFails(name == "metadata.json" ? expected : "keyInvalid", key: TestSupport.rawKey(2))
                try FileManager.default.removeItem(atPath: target)
            }
            if let saved { _ = FileManager.default.createFile(atPath: target, contents: saved) }
        }
        try assertOpensWithEverything()
    }

    func testALockFileThatIsNotARegularFileIsATypedError() throws {
        try makeStore()
        let lock = path + "/cipherdex.lock"
        try FileManager.default.removeItem(atPath: lock)
        XCTAssertEqual(mkfifo(lock, 0o600), 0)
        assertOpenFails("notAStore")
        try FileManager.default.removeItem(atPath: lock)
        try assertOpensWithEverything()
    }

    // MARK: An empty database is damage, never a new store

    func testEmptyOrTruncatedDatabaseIsStoreCorruptedAndNoAttachmentIsDeleted() throws {
        for key in [TestSupport.rawKey(1), nil] {
            setUp()
            try makeStore(key: key)
            let database = path + "/store.db"
            let original = FileManager.default.contents(atPath: database)!
            for length in [0, 1, 100, 4096] {
                _ = FileManager.default.createFile(atPath: database, contents: original.prefix(length))
                assertOpenFails("storeCorrupted", key: key)
                XCTAssertEqual(FileSystem.contents(of: path + "/attachments").count, 1)
            }
            _ = FileManager.default.createFile(atPath: database, contents: original)
            XCTAssertNoThrow(try Store.open(TestSupport.configuration(path, key: key)).close())
        }
    }

    // MARK: Permissions and space

    /// A store on a file system mounted read-only opens read-only (StoreReadOnlyTests): a write
    /// is `permissionDenied` naming the store, and nothing is created.
    func testReadOnlyStoreIsPermissionDeniedAndCreatesNothing() throws {
        try makeStore()
        let view = try Mounts.readOnlyView(of: path)
        mounts.append(view)
        let before = TestSupport.snapshot(view)
        for _ in 0..<2 {
            let store = try Store.open(TestSupport.configuration(view, key: TestSupport.rawKey(1)))
            XCTAssertTrue(store.isReadOnly)
            XCTAssertThrowsError(try store.collection("notes").insert(JSONValue.object([:]), id: "new")) { error in
                XCTAssertEqual((error as? StoreError)?.name, "permissionDenied", "\(error)")
                XCTAssertTrue((error as? StoreError)?.errorDescription?.contains(view) == true, "\(error)")
            }
            store.close()
        }
        XCTAssertEqual(TestSupport.snapshot(view) == before, true)
        Mounts.unmount(view)
        mounts.removeAll()
        try assertOpensWithEverything()
    }

    /// A store made read-only on purpose (`chmod -R a-w`, or its database alone) is refused for
    /// every user, root included (whom `access` lets write anything): its bytes and modes stay as
    /// they were. Made writable again, it opens with everything.
    func testAStoreMadeReadOnlyIsPermissionDeniedForRootToo() throws {
        try makeStore()
        let names = ["", "/store.db", "/metadata.json", "/cipherdex.lock", "/attachments", "/staging"].filter {
            FileManager.default.fileExists(atPath: path + $0)
        }
        func modes() -> [String: Int] {
            var result: [String: Int] = [:]
            for name in names {
                var info = stat()
                if stat(path + name, &info) == 0 { result[name] = Int(info.st_mode & 0o7777) }
            }
            return result
        }
        let original = modes()
        for (target, readOnly) in [(path, names), (path + "/store.db", ["/store.db"])] {
            for name in readOnly {
                var info = stat()
                XCTAssertEqual(stat(path + name, &info), 0)
                XCTAssertEqual(chmod(path + name, info.st_mode & 0o7555), 0)
            }
            let lockedModes = modes()
            assertOpenFails("permissionDenied")
            do {
                _ = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
            } catch let error as StoreError {
                XCTAssertTrue(error.errorDescription!.contains("permission denied for \(target): "), "\(error)")
                XCTAssertTrue(error.errorDescription!.contains("read-only") || getuid() != 0, "\(error)")
            }
            XCTAssertEqual(modes(), lockedModes, "a refused open changed a mode")
            for name in names { XCTAssertEqual(chmod(path + name, mode_t(original[name]!)), 0) }
        }
        try assertOpensWithEverything()
    }

    func testFullDiskIsDiskFullAndTheStoreOpensOnceSpaceIsFreed() throws {
        let disk = try Mounts.tmpfs(size: 4 << 20)
        mounts.append(disk)
        let store = disk + "/store"
        try makeStore(at: store)
        let filler = try Mounts.fill(disk, leaving: 0)
        // Nothing can be written: the open names the full disk rather than damage.
        try? FileManager.default.removeItem(atPath: store + "/store.db-shm")
        let before = TestSupport.snapshot(store)
        do {
            let opened = try Store.open(TestSupport.configuration(store, key: TestSupport.rawKey(1)))
            // An open that needs no new space may succeed; a write must then be diskFull.
            XCTAssertThrowsCase(
                "diskFull",
                try opened.collection("notes").insert(
                    JSONValue.object(["body": .string(String(repeating: "x", count: 1 << 20))]), id: "big"))
            opened.close()
        } catch let error as StoreError {
            XCTAssertEqual(error.name, "diskFull", "\(error)")
            XCTAssertEqual(TestSupport.snapshot(store), before)
        }
        try FileManager.default.removeItem(atPath: filler)
        try assertOpensWithEverything(at: store)
    }

    func testNoInodeLeftIsDiskFullNotDamage() throws {
        let disk = try Mounts.tmpfs(size: 16 << 20, inodes: 64)
        mounts.append(disk)
        let store = disk + "/store"
        try makeStore(at: store)
        // Every inode taken: SQLite cannot create the store's `-wal` (and retries read-only,
        // losing the create's ENOSPC).
        var fillers: [String] = []
        while true {
            let filler = disk + "/filler-\(fillers.count)"
            let descriptor = open(filler, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard descriptor >= 0 else { break }
            close(descriptor)
            fillers.append(filler)
        }
        XCTAssertFalse(FileSystem.exists(store + "/store.db-wal"))
        assertOpenFails("diskFull", at: store)
        XCTAssertThrowsCase(
            "diskFull", try Store.open(TestSupport.configuration(disk + "/new-store", key: TestSupport.rawKey(1))))
        for filler in fillers { unlink(filler) }
        try assertOpensWithEverything(at: store)
    }

    // MARK: Leftovers of a killed create

    func testDirectoryLeftByAKilledCreateBecomesAStore() throws {
        for leftovers in [
            ["cipherdex.lock"], ["cipherdex.lock", "store.db.creating"],
            ["cipherdex.lock", "store.db.creating", "store.db.creating-wal", "store.db.creating-shm"],
        ] {
            setUp()
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for name in leftovers {
                _ = FileManager.default.createFile(atPath: path + "/" + name, contents: Data([1, 2, 3]))
            }
            try makeStore()
            try assertOpensWithEverything()
        }
    }

    func testDeleteRemovesLeftoversOfAKilledCreate() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for name in ["cipherdex.lock", "store.db.creating", "store.db.creating-wal", "store.db.creating-shm"] {
            _ = FileManager.default.createFile(atPath: path + "/" + name, contents: Data([1]))
        }
        try Store.delete(at: path)
        XCTAssertFalse(FileSystem.exists(path))
    }

    func testACreateWhoseKeyCannotBeHadLeavesNothing() throws {
        let failing: KeyProvider = { throw KeyError.unreadable(source: "/nowhere", reason: "no such file") }
        XCTAssertThrowsError(try Store.open(TestSupport.configuration(path, key: failing)))
        XCTAssertFalse(FileSystem.exists(path), "a failed create leaves no directory")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        XCTAssertThrowsError(try Store.open(TestSupport.configuration(path, key: failing)))
        XCTAssertEqual(FileSystem.contents(of: path), [], "a failed create leaves the empty directory empty")
        try makeStore()
        try assertOpensWithEverything()
    }

    func testACostNoOpenWouldAcceptIsRefusedBeforeAnythingIsWritten() throws {
        var configuration = TestSupport.configuration(path, key: TestSupport.passphrase("p"))
        configuration.passphraseCost = PassphraseCost(opsLimit: 1_000, memLimit: 1 << 20)
        XCTAssertThrowsError(try Store.open(configuration)) { error in
            guard case KeyError.unsupportedCost = error else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(FileSystem.exists(path))
    }

    func testACostNoOpenWouldAcceptIsRefusedAtTheOpenOfAnExistingStore() throws {
        try makeStore()
        let before = TestSupport.snapshot(path)
        let asked = Atomic<Int>(0)
        let key = TestSupport.rawKey(1)
        var configuration = TestSupport.configuration(
            path,
            key: {
                asked.add(1, ordering: .relaxed)
                return try key()
            })
        configuration.passphraseCost = PassphraseCost(opsLimit: 17, memLimit: 1 << 20)
        XCTAssertThrowsError(try Store.open(configuration)) { error in
            guard case KeyError.unsupportedCost = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(asked.load(ordering: .relaxed), 0, "the key provider is not asked")
        XCTAssertEqual(TestSupport.snapshot(path), before, "the failed open changed the store")
        try assertOpensWithEverything()
    }

    // MARK: Delete only what is provably ours

    func testDeleteRefusesAnotherProgramsFiles() throws {
        try FileManager.default.createDirectory(atPath: path + "/attachments", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path + "/store.db", contents: Data("their database".utf8))
        _ = FileManager.default.createFile(atPath: path + "/attachments/a", contents: Data("their file".utf8))
        _ = FileManager.default.createFile(atPath: path + "/metadata.json", contents: Data("{\"theirs\": true}".utf8))
        let before = TestSupport.snapshot(path)
        XCTAssertThrowsCase("notAStore", try Store.delete(at: path))
        XCTAssertEqual(TestSupport.snapshot(path), before)
    }

    // MARK: Metadata anyone can edit

    func testEditedArgon2CostIsRefusedBeforeAnyWork() throws {
        try makeStore(key: TestSupport.passphrase("right"))
        let metadataPath = path + "/metadata.json"
        for (ops, memory) in [(UInt64(1) << 40, 64 << 20), (3, 1 << 40), (UInt64.max, Int.max)] {
            var metadata = try StoreMetadata.parse(Array(FileManager.default.contents(atPath: metadataPath)!))
            let original = FileManager.default.contents(atPath: metadataPath)!
            metadata.keyslots[0].kdf?.opsLimit = ops
            metadata.keyslots[0].kdf?.memLimit = memory
            metadata.checksum = nil
            metadata.checksum = Base64Bytes(Sodium.checksum(try metadata.canonicalBytes(includingMAC: true)))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            _ = FileManager.default.createFile(atPath: metadataPath, contents: try encoder.encode(metadata))
            assertOpenFails("metadataCorrupt", key: TestSupport.passphrase("right"))
            _ = FileManager.default.createFile(atPath: metadataPath, contents: original)
        }
    }

    /// A field of the wrong type or missing is named (never its value).
    func testAMalformedMetadataFieldIsNamed() throws {
        try makeStore(key: TestSupport.passphrase("right"))
        let metadataPath = path + "/metadata.json"
        let original = FileManager.default.contents(atPath: metadataPath)!
        let cases: [(edit: (inout [String: Any]) -> Void, expected: String)] = [
            ({ Self.editSlot(&$0) { $0["kdf"] = ["opsLimit": -1] } }, "keyslots[0].kdf"),
            ({ Self.editSlot(&$0) { $0["kind"] = "recovery" } }, "metadata field keyslots[0].kind is malformed"),
            ({ Self.editSlot(&$0) { $0["id"] = "1" } }, "metadata field keyslots[0].id has a value of the wrong type"),
            ({ $0.removeValue(forKey: "storeID") }, "metadata lacks the field storeID"),
        ]
        for (edit, expected) in cases {
            var object = try JSONSerialization.jsonObject(with: original) as! [String: Any]
            edit(&object)
            _ = FileManager.default.createFile(
                atPath: metadataPath, contents: try JSONSerialization.data(withJSONObject: object))
            let before = TestSupport.snapshot(path)
            XCTAssertThrowsError(try Store.open(TestSupport.configuration(path, key: TestSupport.passphrase("right"))))
            {
                let text = ($0 as? EncryptionError)?.errorDescription ?? "\($0)"
                XCTAssertTrue(text.contains(expected), text)
            }
            XCTAssertEqual(TestSupport.snapshot(path), before)
        }
        _ = FileManager.default.createFile(atPath: metadataPath, contents: original)
    }

    private static func editSlot(_ object: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
        var slots = object["keyslots"] as! [[String: Any]]
        change(&slots[0])
        object["keyslots"] = slots
    }

    func testEditedSlotCountIsRefused() throws {
        try makeStore()
        let metadataPath = path + "/metadata.json"
        var metadata = try StoreMetadata.parse(Array(FileManager.default.contents(atPath: metadataPath)!))
        metadata.keyslots = (0..<1000).map { index in
            var slot = metadata.keyslots[0]
            slot.id = index
            return slot
        }
        metadata.checksum = nil
        metadata.checksum = Base64Bytes(Sodium.checksum(try metadata.canonicalBytes(includingMAC: true)))
        _ = FileManager.default.createFile(atPath: metadataPath, contents: try JSONEncoder().encode(metadata))
        assertOpenFails("metadataCorrupt")
    }

    /// A store whose passphrase slots together ask for more than an open spends (an older build's
    /// library allowed it) still opens with its raw key, which derives nothing (upgrade audit 1:
    /// it was `metadataCorrupt` with any key, and no slot could be removed).
    func testSlotsTooCostlyTogetherStillOpenWithARawKey() throws {
        try makeStore()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try TestSupport.addCostlyPassphraseSlots(2...7, to: store)
        store.close()
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try reopened.removeKey(slot: 7)  // and its slots can be managed; five still ask too much
        reopened.close()
    }

    /// A new passphrase slot whose cost would take the slots' work past what an open accepts is
    /// refused (`unsupportedCost`) before its derivation, the store unchanged.
    func testAKeyWhoseCostWouldMakeTheStoreUnopenableIsRefused() throws {
        try makeStore()
        // Four slots at the largest cost (sealed here without their derivation: never unwrapped).
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        try TestSupport.addCostlyPassphraseSlots(2...5, to: store)
        let before = TestSupport.snapshot(path)
        let started = Date()
        XCTAssertThrowsError(try store.addKey(TestSupport.passphrase("another"))) { error in
            guard case KeyError.unsupportedCost(let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("together"), reason)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0)
        XCTAssertEqual(TestSupport.snapshot(path), before)
        // A raw key asks for no derivation: it is added.
        XCTAssertNoThrow(try store.addKey(TestSupport.rawKey(2)))
    }

    // MARK: Connections closed before the lock is released

    func testCloseLetsGoOfEveryDatabaseFileBeforeReturning() throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        _ = try store.createCollection("notes").count()
        XCTAssertFalse(openDescriptors(under: path).isEmpty)
        store.close()
        XCTAssertEqual(
            openDescriptors(under: path), [], "a connection outlived close(); the lock was released too early")
        withExtendedLifetime(store) {}
    }

    private func openDescriptors(under directory: String) -> [String] {
        let resolved = (directory as NSString).resolvingSymlinksInPath
        return FileSystem.contents(of: "/proc/self/fd").compactMap { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)).flatMap {
                $0.hasPrefix(resolved + "/") ? $0 : nil
            }
        }.sorted()
    }

    // MARK: Owner-only modes whatever the umask

    func testEveryFileAndDirectoryIsOwnerOnlyWhateverTheUmask() throws {
        let previous = umask(0)
        defer { umask(previous) }
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        _ = try store.addAttachment(Data("x".utf8))
        try store.createCollection("notes").insert(JSONValue.object([:]), id: "a")
        assertOwnerOnly(path)
        store.close()
        // An older store's 0644 files are tightened by the next open.
        chmod(path + "/store.db", 0o644)
        chmod(path, 0o755)
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        assertOwnerOnly(path)
        // Bits are only taken away: a metadata file made read-only on purpose stays so.
        chmod(path + "/metadata.json", 0o400)
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        var info = stat()
        XCTAssertEqual(lstat(path + "/metadata.json", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o400)
    }

    /// A metadata path that is a folder: `delete` says so before doing anything (it could never
    /// remove what the metadata path became), and every file stays.
    func testDeleteOfAStoreWhoseMetadataIsAFolderChangesNothing() throws {
        let path = TestSupport.temporaryPath()
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        try FileManager.default.removeItem(atPath: path + "/metadata.json")
        try FileManager.default.createDirectory(atPath: path + "/metadata.json", withIntermediateDirectories: false)
        let before = TestSupport.snapshot(path)
        XCTAssertThrowsCase("notAStore", try Store.delete(at: path))
        XCTAssertEqual(TestSupport.snapshot(path) == before, true)
    }

    private func assertOwnerOnly(_ directory: String, file: StaticString = #filePath, line: UInt = #line) {
        var info = stat()
        XCTAssertEqual(lstat(directory, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o700, directory, file: file, line: line)
        for name in FileSystem.contents(of: directory) {
            let child = directory + "/" + name
            XCTAssertEqual(lstat(child, &info), 0)
            if (info.st_mode & S_IFMT) == S_IFDIR {
                assertOwnerOnly(child, file: file, line: line)
            } else {
                XCTAssertEqual(info.st_mode & 0o777, 0o600, child, file: file, line: line)
            }
        }
    }
}
