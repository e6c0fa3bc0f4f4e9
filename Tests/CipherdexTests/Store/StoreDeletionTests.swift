import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

final class StoreDeletionTests: XCTestCase {
    func testDeleteRemovesEveryFileAndTheDirectory() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try store.write { try $0.execute("CREATE TABLE t (x)") }
        XCTAssertThrowsCase("storeLocked", try Store.delete(at: path))
        store.close()
        XCTAssertEqual(try Store.deleteReportingFolder(at: path), .removed)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertFalse(Store.exists(at: path))
        XCTAssertThrowsCase("notAStore", try Store.delete(at: path))
    }

    func testCloseAndDeleteFromAnOpenStore() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        _ = try store.addAttachment(Data("bytes".utf8))
        try store.closeAndDelete()
        XCTAssertFalse(store.isOpen)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    /// Inside a read, `closeAndDelete()` is refused before it closes anything (it closed the
    /// store, then failed to delete it, naming another process); after the read it works.
    func testCloseAndDeleteInsideAReadIsRefusedAndChangesNothing() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try store.createCollection("c").insert(JSONValue.object(["n": .string("1")]), id: "a")
        XCTAssertThrowsCase("insideTransaction", try store.read { (_: StoreSnapshot) in try store.closeAndDelete() })
        XCTAssertTrue(store.isOpen)
        XCTAssertEqual(try store.collection("c").get(id: "a")?[path: "n"], .string("1"))
        try store.closeAndDelete()
        XCTAssertFalse(Store.exists(at: path))
    }

    func testDeleteKeepsForeignFilesAndDirectory() throws {
        let path = TestSupport.temporaryPath()
        try Store.open(TestSupport.configuration(path, key: nil)).close()
        _ = FileManager.default.createFile(atPath: path + "/mine.txt", contents: Data("user file".utf8))
        let folder = try Store.deleteReportingFolder(at: path)
        XCTAssertEqual(folder, .kept(remaining: ["mine.txt"]))
        XCTAssertEqual(folder.note, "its folder was kept: it holds what is not the store's: mine.txt")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path), ["mine.txt"])
    }

    /// A store folder that cannot itself be removed once emptied (here a mount point: `rmdir`
    /// fails with `EBUSY`) is not hidden: the deletion succeeds (the store is gone) and says the
    /// folder was left empty, and why.
    func testDeleteSaysWhenTheEmptiedFolderCannotBeRemoved() throws {
        let disk = try Mounts.tmpfs(size: 4 << 20)
        defer { Mounts.unmount(disk) }
        try Store.open(TestSupport.configuration(disk, key: TestSupport.rawKey(1))).close()
        let folder = try Store.deleteReportingFolder(at: disk)
        XCTAssertEqual(folder, .notRemoved(reason: "it is an empty mount point"))
        XCTAssertEqual(folder.note, "its folder was left: it is an empty mount point")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: disk), [])
        XCTAssertFalse(Store.exists(at: disk))
    }

    func testInterruptedDeleteIsFinishedByNextOpen() throws {
        let path = TestSupport.temporaryPath()
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        // The first step of a delete, then a crash: the store is gone...
        try FileManager.default.moveItem(atPath: path + "/metadata.json", toPath: path + "/metadata.json.deleted")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "/store.db"))
        // ...so opening finishes the deletion and makes a new store with the new key.
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/metadata.json.deleted"))
        XCTAssertTrue(store.isEncrypted)
        // The new store has its lock file (the deletion removed the old one): what a kill of
        // this create leaves is provably ours.
        XCTAssertTrue(FileKind.of(path + "/cipherdex.lock").isRegular)
        store.close()
        XCTAssertThrowsCase("keyInvalid", try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))))
    }

    /// After an interrupted delete the store is gone (`exists` is false, a create makes a new
    /// one), and an open that may not create one fails without touching anything.
    func testAnInterruptedDeleteLeavesNoStoreAndAFailedOpenChangesNothing() throws {
        let path = TestSupport.temporaryPath()
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        try FileManager.default.moveItem(atPath: path + "/metadata.json", toPath: path + "/metadata.json.deleted")
        XCTAssertFalse(Store.exists(at: path))
        let before = TestSupport.snapshot(path)
        var existing = TestSupport.configuration(path, key: TestSupport.rawKey(1))
        existing.createIfMissing = false
        XCTAssertThrowsCase("notAStore", try Store.open(existing))
        XCTAssertEqual(TestSupport.snapshot(path) == before, true)
        var create = TestSupport.configuration(path, key: TestSupport.rawKey(2))
        create.requiresNewStore = true
        try Store.open(create).close()
        XCTAssertTrue(Store.exists(at: path))
    }

    func testInterruptedCreationIsFinishedOrRestarted() throws {
        let path = TestSupport.temporaryPath()
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        // Crash after the metadata but before the database rename.
        try FileManager.default.moveItem(atPath: path + "/store.db", toPath: path + "/store.db.creating")
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "/store.db"))
        store.close()
        // Crash before the metadata: no store, the leftover is replaced.
        let second = TestSupport.temporaryPath()
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: second + "/store.db.creating", contents: Data(repeating: 7, count: 100))
        XCTAssertFalse(Store.exists(at: second))
        let fresh = try Store.open(TestSupport.configuration(second, key: nil))
        XCTAssertFalse(FileManager.default.fileExists(atPath: second + "/store.db.creating"))
        fresh.close()
    }

    /// What is not the store's inside its folders — a store a user made in `attachments/` before
    /// that was refused, a user's file there — survives the store's deletion, with the folder
    /// that holds it; the store's own attachment files go (`delete` removed the whole tree).
    func testDeleteKeepsWhatIsNotTheStoresInsideItsFolders() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        let id = try store.addAttachment(Data("bytes".utf8)).id
        store.close()
        let nested = path + "/attachments/nested"
        try FileManager.default.createDirectory(atPath: nested, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: nested + "/store.db", contents: Data("someone's data".utf8))
        try FileManager.default.createDirectory(atPath: path + "/staging", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path + "/staging/notes.txt", contents: Data("user file".utf8))

        XCTAssertEqual(try Store.deleteReportingFolder(at: path), .kept(remaining: ["attachments", "staging"]))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/attachments/" + id))
        XCTAssertEqual(FileManager.default.contents(atPath: nested + "/store.db"), Data("someone's data".utf8))
        XCTAssertEqual(FileManager.default.contents(atPath: path + "/staging/notes.txt"), Data("user file".utf8))
        XCTAssertFalse(Store.exists(at: path))
    }

    /// An attachments folder of another generation (what an interrupted conversion left) loses
    /// only the store's files at the next open: a folder in it stays.
    func testAnOpenRemovesOnlyTheStoresFilesOfAnotherGeneration() throws {
        let path = TestSupport.temporaryPath()
        try Store.open(TestSupport.configuration(path, key: nil)).close()
        let old = path + "/attachments.1"
        try FileManager.default.createDirectory(atPath: old + "/kept", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: old + "/kept/file", contents: Data("user file".utf8))
        _ = FileManager.default.createFile(atPath: old + "/" + String(repeating: "ab", count: 16), contents: Data())
        try Store.open(TestSupport.configuration(path, key: nil)).close()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: old), ["kept"])
        XCTAssertEqual(FileManager.default.contents(atPath: old + "/kept/file"), Data("user file".utf8))
    }

    /// A relative path whose working directory was removed (`realpath` fails, the path stays
    /// relative) is looked at up to `.` and no further: the check looped forever.
    func testTheCheckEndsForARelativePathInARemovedWorkingDirectory() throws {
        let saved = FileManager.default.currentDirectoryPath
        defer { XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(saved)) }
        let gone = TestSupport.temporaryPath("gone")
        try FileManager.default.createDirectory(atPath: gone, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(gone))
        try FileManager.default.removeItem(atPath: gone)
        try Store.refuseInsideAnotherStoresFolder("newstore")
        try Store.refuseInsideAnotherStoresFolder("a/b/attachments")
    }

    /// A new store, or a backup, is refused inside another store's folders (or at one of its
    /// names) before anything is created: that store's deletion and checks take them for its own.
    func testANewStoreOrBackupInsideAnotherStoresFoldersIsRefused() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: nil))
        _ = try store.addAttachment(Data("bytes".utf8))
        store.close()
        let before = TestSupport.snapshot(path)
        for inner in ["/attachments/x", "/staging", "/store.db-wal", "/attachments.3"] {
            XCTAssertThrowsCase("invalidPath", try Store.open(TestSupport.configuration(path + inner, key: nil)))
        }
        let other = TestSupport.temporaryPath()
        let source = try Store.open(TestSupport.configuration(other, key: nil))
        defer { source.close() }
        XCTAssertThrowsCase("destinationNotAStore", try source.backup(to: path + "/attachments/b"))
        XCTAssertEqual(TestSupport.snapshot(path), before)
        // Beside the store, not in it: allowed.
        try Store.open(TestSupport.configuration(path + "/sub", key: nil)).close()
    }

    /// The same when one of the store's folders is reached through another path (a bind mount
    /// of its `attachments/`, as a container has): the store there was made inside it.
    func testANewStoreOrBackupInsideAnotherStoresFolderThroughABindMountIsRefused() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: nil))
        _ = try store.addAttachment(Data("bytes".utf8))
        store.close()
        let attachments = try Mounts.bind(path + "/attachments")
        defer { Mounts.unmount(attachments) }
        let staging = try Mounts.bind(path + "/staging")
        defer { Mounts.unmount(staging) }
        let before = TestSupport.snapshot(path)
        for inner in [attachments + "/x", staging + "/x"] {
            XCTAssertThrowsCase("invalidPath", try Store.open(TestSupport.configuration(inner, key: nil)))
        }
        let other = TestSupport.temporaryPath()
        let source = try Store.open(TestSupport.configuration(other, key: nil))
        defer { source.close() }
        XCTAssertThrowsCase("destinationNotAStore", try source.backup(to: attachments + "/b"))
        XCTAssertEqual(TestSupport.snapshot(path), before)
    }

    /// A store deleted through a symbolic link to its folder: the folder goes, the link stays
    /// and is said (file-system audit 7b: "removing it failed: Not a directory").
    func testDeletingThroughALinkRemovesTheFolderItLeadsToAndKeepsTheLink() throws {
        let real = TestSupport.temporaryPath()
        let link = TestSupport.temporaryPath("link")
        try Store.open(TestSupport.configuration(real, key: TestSupport.rawKey(1))).close()
        XCTAssertEqual(symlink(real, link), 0)
        defer { unlink(link) }
        XCTAssertEqual(
            try Store.deleteReportingFolder(at: link),
            .notRemoved(reason: "it is a symbolic link, left as it is; the folder it led to, \(real), was removed"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: real))
        XCTAssertEqual(FileKind.of(link), .symbolicLink)
    }
}

final class FileSystemTests: XCTestCase {
    func testParentOfPaths() {
        XCTAssertEqual(FileSystem.parent(of: "s"), ".")
        XCTAssertEqual(FileSystem.parent(of: "a/b"), "a")
        XCTAssertEqual(FileSystem.parent(of: "/a"), "/")
        XCTAssertEqual(FileSystem.parent(of: "/a/b/"), "/a")
        XCTAssertEqual(FileSystem.parent(of: "/"), "/")
    }
}
