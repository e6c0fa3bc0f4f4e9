import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// `attachments/` and `staging/` kept elsewhere (a link to another folder or disk, a mount
/// point): the store keeps opening and working, and re-encryption and deletion leave none of
/// the store's files where the link points.
final class StoreLinkedFolderTests: XCTestCase {
    private var path = ""

    override func setUp() {
        path = TestSupport.temporaryPath()
    }

    private func configuration(_ key: UInt8 = 1) -> StoreConfiguration {
        TestSupport.configuration(path, key: TestSupport.rawKey(key))
    }

    /// A store with one attachment; returns its id.
    private func makeStore() throws -> String {
        let store = try Store.open(configuration())
        defer { store.close() }
        return try store.addAttachment(Data("first attachment".utf8)).id
    }

    /// The names of attachment files in `folder`.
    private func attachmentFiles(in folder: String) -> [String] {
        FileSystem.contents(of: folder).filter { AttachmentStorage.isValidID($0) }.sorted()
    }

    func testAttachmentsOnAnotherFileSystemKeepWorking() throws {
        let first = try makeStore()
        let disk = try Mounts.tmpfs(size: 8 << 20)
        defer { Mounts.unmount(disk) }
        let elsewhere = disk + "/attachments"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        for name in FileSystem.contents(of: path + "/attachments") {
            let data = try Data(contentsOf: URL(fileURLWithPath: path + "/attachments/" + name))
            try data.write(to: URL(fileURLWithPath: elsewhere + "/" + name))
        }
        try FileManager.default.removeItem(atPath: path + "/attachments")
        XCTAssertEqual(symlink(elsewhere, path + "/attachments"), 0)

        var second = ""
        do {
            let store = try Store.open(configuration())
            defer { store.close() }
            second = try store.addAttachment(Data("second attachment".utf8)).id
            XCTAssertEqual(try store.attachmentData(second), Data("second attachment".utf8))
        }
        // Every later open works, and finds both (the second stays in staging/: no rename can
        // move it to the other disk).
        for _ in 0..<2 {
            let store = try Store.open(configuration())
            defer { store.close() }
            XCTAssertEqual(try store.attachmentData(first), Data("first attachment".utf8))
            XCTAssertEqual(try store.attachmentData(second), Data("second attachment".utf8))
            XCTAssertEqual(try store.verify().problems, [])
            XCTAssertTrue(try store.removeAttachment(second))
            second = try store.addAttachment(Data("second attachment".utf8)).id
        }
        XCTAssertThrowsError(try Store.reencrypt(configuration(), newKey: TestSupport.rawKey(2))) {
            XCTAssertEqual($0 as? StoreConversionError, .dataFolderElsewhere(path: path + "/attachments"))
        }
    }

    func testStagingLinkedToAnEmptyFolderOrAMountPointOpens() throws {
        let id = try makeStore()
        let empty = TestSupport.temporaryPath("staging-elsewhere")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        try? FileManager.default.removeItem(atPath: path + "/staging")
        XCTAssertEqual(symlink(empty, path + "/staging"), 0)
        for _ in 0..<2 {
            let store = try Store.open(configuration())
            XCTAssertEqual(try store.attachmentData(id), Data("first attachment".utf8))
            _ = try store.addAttachment(Data(UUID().uuidString.utf8))
            store.close()
        }
        XCTAssertEqual(FileKind.of(path + "/staging").description, FileKind.symbolicLink.description)
        XCTAssertEqual(FileSystem.contents(of: empty), [])

        try FileManager.default.removeItem(atPath: path + "/staging")
        try FileManager.default.createDirectory(atPath: path + "/staging", withIntermediateDirectories: false)
        let disk = try Mounts.tmpfs(size: 1 << 20)
        defer { Mounts.unmount(disk) }
        guard Mounts.run(["mount", "--bind", disk, path + "/staging"]) == 0 else {
            throw XCTSkip("cannot bind-mount here")
        }
        defer { Mounts.run(["umount", path + "/staging"]) }
        let store = try Store.open(configuration())
        defer { store.close() }
        XCTAssertEqual(try store.attachmentData(id), Data("first attachment".utf8))
    }

    /// A conversion of a store whose `attachments/` is a link elsewhere is refused before anything
    /// is written (the new copies would land in the store's folder, and the old ones where the
    /// link points could not be removed safely: a `cp -a` copy of the store shares them).
    /// `delete` removes the link, never what it points to.
    func testALinkedAttachmentsFolderIsNeverEmptiedThroughTheLink() throws {
        let id = try makeStore()
        let elsewhere = TestSupport.temporaryPath("attachments-elsewhere")
        try FileManager.default.moveItem(atPath: path + "/attachments", toPath: elsewhere)
        XCTAssertEqual(symlink(elsewhere, path + "/attachments"), 0)
        let before = Set(FileSystem.contents(of: path)).subtracting(["staging"])
        XCTAssertThrowsError(try Store.reencrypt(configuration(), newKey: TestSupport.rawKey(2))) {
            XCTAssertEqual($0 as? StoreConversionError, .dataFolderElsewhere(path: path + "/attachments"))
        }
        XCTAssertEqual(
            Set(FileSystem.contents(of: path)).subtracting(["staging"]), before,
            "nothing of a new generation was written")
        XCTAssertEqual(attachmentFiles(in: elsewhere), [id])

        // A copy made with `cp -a` shares the folder: deleting it leaves the original whole.
        let copy = TestSupport.temporaryPath("copy")
        XCTAssertEqual(Mounts.run(["cp", "-a", path, copy]), 0)
        try Store.delete(at: copy)
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy))
        XCTAssertEqual(attachmentFiles(in: elsewhere), [id])
        let store = try Store.open(configuration())
        defer { store.close() }
        XCTAssertEqual(try store.attachmentData(id), Data("first attachment".utf8))
    }

    /// An open never removes or moves what is in a `staging/` kept elsewhere: the folder a link
    /// names may be another store's `attachments/`, or a staging folder a `cp -a` copy shares.
    func testAnOpenLeavesAStagingFolderElsewhereAsItIs() throws {
        _ = try makeStore()
        // Another store's attachments folder, named by this store's `staging/`.
        let victim = TestSupport.temporaryPath("victim")
        let victimID: String
        do {
            let store = try Store.open(TestSupport.configuration(victim, key: TestSupport.rawKey(2)))
            defer { store.close() }
            victimID = try store.addAttachment(Data("the other store's attachment".utf8)).id
        }
        try? FileManager.default.removeItem(atPath: path + "/staging")
        XCTAssertEqual(symlink(victim + "/attachments", path + "/staging"), 0)
        try Store.open(configuration()).close()
        XCTAssertEqual(attachmentFiles(in: victim + "/attachments"), [victimID])
        try FileManager.default.removeItem(atPath: path + "/staging")

        // A staging folder on another disk, where committed files stay, shared by a copy.
        let disk = try Mounts.tmpfs(size: 1 << 20)
        defer { Mounts.unmount(disk) }
        XCTAssertEqual(symlink(disk, path + "/staging"), 0)
        let copy = TestSupport.temporaryPath("copy")
        XCTAssertEqual(Mounts.run(["cp", "-a", path, copy]), 0)
        let added: String
        do {
            let store = try Store.open(configuration())
            defer { store.close() }
            added = try store.addAttachment(Data("kept in the shared staging folder".utf8)).id
        }
        XCTAssertEqual(attachmentFiles(in: disk), [added])
        try Store.open(TestSupport.configuration(copy, key: TestSupport.rawKey(1))).close()
        let store = try Store.open(configuration())
        defer { store.close() }
        XCTAssertEqual(try store.attachmentData(added), Data("kept in the shared staging folder".utf8))
    }

    /// A staged file whose attachment is already in `attachments/` (what a conversion's old
    /// generation left in `staging/`) is stale: removed at the next open, never published over
    /// the current file.
    func testAStaleStagedCopyIsNeverPublishedOverTheCurrentFile() throws {
        let id = try makeStore()
        try FileManager.default.createDirectory(atPath: path + "/staging", withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 300).write(to: URL(fileURLWithPath: path + "/staging/" + id))
        let store = try Store.open(configuration())
        defer { store.close() }
        XCTAssertEqual(try store.attachmentData(id), Data("first attachment".utf8))
        XCTAssertFalse(FileSystem.exists(path + "/staging/" + id))
        XCTAssertEqual(try store.verify().problems, [])
    }

    /// Files of another generation that cannot be removed (a mount point in their place) do not
    /// keep the store from opening.
    func testAnOtherGenerationThatCannotBeRemovedDoesNotLockTheStoreOut() throws {
        let id = try makeStore()
        let disk = try Mounts.tmpfs(size: 1 << 20)
        defer { Mounts.unmount(disk) }
        let stale = path + "/attachments.7"
        try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: false)
        guard Mounts.run(["mount", "--bind", disk, stale]) == 0 else { throw XCTSkip("cannot bind-mount here") }
        defer { Mounts.run(["umount", stale]) }
        let store = try Store.open(configuration())
        defer { store.close() }
        XCTAssertEqual(try store.attachmentData(id), Data("first attachment".utf8))
    }

    /// `delete` of a store whose `attachments/` is another file system's mount point leaves that
    /// file system as it is (what is on it may be anyone's, and a mount point cannot be
    /// removed), and deletes the rest.
    func testDeleteLeavesAMountedAttachmentsFileSystemAlone() throws {
        let id = try makeStore()
        let disk = try Mounts.tmpfs(size: 4 << 20)
        defer { Mounts.unmount(disk) }
        try FileManager.default.removeItem(atPath: path + "/attachments")
        try FileManager.default.createDirectory(atPath: path + "/attachments", withIntermediateDirectories: false)
        guard Mounts.run(["mount", "--bind", disk, path + "/attachments"]) == 0 else {
            throw XCTSkip("cannot bind-mount here")
        }
        defer { Mounts.run(["umount", path + "/attachments"]) }
        try Data("not the store's".utf8).write(to: URL(fileURLWithPath: disk + "/README-mine.txt"))
        try Data("ciphertext".utf8).write(to: URL(fileURLWithPath: disk + "/" + id))
        try Store.delete(at: path)
        XCTAssertFalse(FileSystem.exists(path + "/metadata.json"))
        XCTAssertFalse(FileSystem.exists(path + "/store.db"))
        XCTAssertEqual(FileSystem.contents(of: disk).sorted(), [id, "README-mine.txt"].sorted())
    }

    /// A folder of the same file system bound onto `attachments/` (`mount --bind`: the same
    /// `st_dev`) is another's too: `delete` leaves it and everything in it.
    func testDeleteLeavesABindMountedFolderAlone() throws {
        _ = try makeStore()
        let elsewhere = TestSupport.temporaryPath("bound-elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: elsewhere + "/precious.txt"))
        guard Mounts.run(["mount", "--bind", elsewhere, path + "/attachments"]) == 0 else {
            throw XCTSkip("cannot bind-mount here")
        }
        defer { Mounts.run(["umount", path + "/attachments"]) }
        try Store.delete(at: path)
        XCTAssertFalse(FileSystem.exists(path + "/metadata.json"))
        XCTAssertEqual(FileSystem.contents(of: elsewhere), ["precious.txt"])
    }

    /// A mount point inside `staging/` is not the store's: the deletion leaves it (and the folder
    /// holding it) as it is, removes the rest, and says the folder was kept; nothing on the mount
    /// is touched. (It failed with `mountPoint` before and kept its tombstone, when everything in
    /// the store's folders was taken for its own.)
    func testADeletionLeavesAMountPointInsideItsFoldersAsItIs() throws {
        _ = try makeStore()
        try FileManager.default.createDirectory(atPath: path + "/staging/x", withIntermediateDirectories: true)
        let elsewhere = TestSupport.temporaryPath("bound-elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: elsewhere + "/precious.txt"))
        guard Mounts.run(["mount", "--bind", elsewhere, path + "/staging/x"]) == 0 else {
            throw XCTSkip("cannot bind-mount here")
        }
        defer { Mounts.run(["umount", path + "/staging/x"]) }
        XCTAssertEqual(try Store.deleteReportingFolder(at: path), .kept(remaining: ["staging"]))
        XCTAssertEqual(FileSystem.contents(of: elsewhere), ["precious.txt"])
        XCTAssertFalse(FileSystem.exists(path + "/metadata.json.deleted"))
        XCTAssertFalse(FileSystem.exists(path + "/cipherdex.lock"))
        XCTAssertFalse(Store.exists(at: path))
    }

    /// A stale staged copy that cannot be removed (an immutable file) does not keep the store
    /// from opening; the published file is what is read.
    func testAStaleStagedCopyThatCannotBeRemovedDoesNotLockTheStoreOut() throws {
        let id = try makeStore()
        try FileManager.default.createDirectory(atPath: path + "/staging", withIntermediateDirectories: true)
        let stale = path + "/staging/" + id
        try Data(repeating: 0x5A, count: 300).write(to: URL(fileURLWithPath: stale))
        guard Mounts.run(["chattr", "+i", stale]) == 0 else { throw XCTSkip("cannot make a file immutable here") }
        defer { Mounts.run(["chattr", "-i", stale]) }
        let store = try Store.open(configuration())
        defer { store.close() }
        XCTAssertEqual(try store.attachmentData(id), Data("first attachment".utf8))
    }
}
