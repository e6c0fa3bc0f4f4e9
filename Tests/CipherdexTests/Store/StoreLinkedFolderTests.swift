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

    func testReencryptionAndDeletionEmptyALinkedAttachmentsFolder() throws {
        let id = try makeStore()
        let elsewhere = TestSupport.temporaryPath("attachments-elsewhere")
        try FileManager.default.moveItem(atPath: path + "/attachments", toPath: elsewhere)
        XCTAssertEqual(symlink(elsewhere, path + "/attachments"), 0)
        try Data("not the store's".utf8).write(to: URL(fileURLWithPath: elsewhere + "/README.txt"))
        XCTAssertEqual(attachmentFiles(in: elsewhere), [id])

        try Store.reencrypt(configuration(), newKey: TestSupport.rawKey(2))
        XCTAssertEqual(
            attachmentFiles(in: elsewhere), [], "no file under the retired key is left where the link pointed")
        XCTAssertEqual(FileSystem.contents(of: elsewhere), ["README.txt"])
        let store = try Store.open(configuration(2))
        XCTAssertEqual(try store.attachmentData(id), Data("first attachment".utf8))
        store.close()

        // The new generation's folder linked elsewhere again, then the store deleted.
        let current = path + "/attachments.1"
        let second = TestSupport.temporaryPath("attachments-elsewhere-2")
        try FileManager.default.moveItem(atPath: current, toPath: second)
        XCTAssertEqual(symlink(second, current), 0)
        try Store.delete(at: path)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertEqual(attachmentFiles(in: second), [], "delete removes the store's files where the link pointed")
    }
}
