import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// An incremental backup (or a restore over a store) keeps the attachment files the destination
/// already holds only when they are whole: a file damaged there, even of the right size, is
/// copied again, so damage is never carried forward and restoring a good backup repairs it.
final class StoreBackupReuseTests: XCTestCase {
    /// Flips one byte in the middle of the file at `path` (its size unchanged).
    private func damage(_ path: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    func testADamagedFileInThePreviousBackupIsCopiedAgain() throws {
        for key in [TestSupport.rawKey(1), nil] {
            let path = TestSupport.temporaryPath()
            let ids = try StoreBackupTests.populate(path, key: key)
            let store = try Store.open(TestSupport.configuration(path, key: key))
            defer { store.close() }
            let destination = TestSupport.temporaryPath("backup")
            try store.backup(to: destination)
            try damage(destination + "/attachments/" + ids[0])
            let second = try store.backup(to: destination)
            XCTAssertEqual(second.attachmentsCopied, 1, "the damaged file is copied again")
            XCTAssertEqual(second.attachmentsReused, 2)
            let backup = try Store.open(TestSupport.configuration(destination, key: key))
            defer { backup.close() }
            XCTAssertTrue(try backup.verify().isHealthy)
            XCTAssertEqual(try backup.attachmentData(ids[0]), Data(StoreBackupTests.attachmentText.utf8))
        }
    }

    func testRestoringAGoodBackupOverADamagedStoreRepairsIt() throws {
        for key in [TestSupport.rawKey(1), nil] {
            let path = TestSupport.temporaryPath()
            let ids = try StoreBackupTests.populate(path, key: key)
            let destination = TestSupport.temporaryPath("backup")
            do {
                let store = try Store.open(TestSupport.configuration(path, key: key))
                defer { store.close() }
                try store.backup(to: destination)
            }
            try damage(path + "/attachments/" + ids[0])
            do {
                let store = try Store.open(TestSupport.configuration(path, key: key))
                defer { store.close() }
                XCTAssertFalse(try store.verify().isHealthy)
            }
            let summary = try Store.restore(
                TestSupport.configuration(destination, key: key), to: path, replacingExistingStore: true)
            XCTAssertEqual(summary.attachmentsCopied, 1, "the damaged file is replaced")
            let restored = try Store.open(TestSupport.configuration(path, key: key))
            defer { restored.close() }
            XCTAssertTrue(try restored.verify().isHealthy)
            XCTAssertEqual(try restored.attachmentData(ids[0]), Data(StoreBackupTests.attachmentText.utf8))
        }
    }

    /// A page of the source's database that does not decrypt or authenticate is
    /// `storeCorrupted` naming the database (it was an untyped "SQL logic error"), and the
    /// destination is not made.
    func testADamagedDatabasePageIsStoreCorruptedNamingTheDatabase() throws {
        let path = TestSupport.temporaryPath()
        _ = try StoreBackupTests.populate(path, key: TestSupport.rawKey(1))
        TestSupport.flipBit(path + "/store.db", at: 3 * CipherSettings.default.pageSize + 500)
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let destination = TestSupport.temporaryPath("backup")
        XCTAssertThrowsError(try store.backup(to: destination)) { error in
            guard case .storeCorrupted(let reason) = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("a page of the database \(path)/store.db"), reason)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
    }

    /// An attachment whose file is a FIFO (or a link) is named as such, not as missing.
    func testAnAttachmentThatIsNotARegularFileIsNamedSo() throws {
        let path = TestSupport.temporaryPath()
        let ids = try StoreBackupTests.populate(path, key: nil)
        let file = path + "/attachments/" + ids[1]
        try FileManager.default.removeItem(atPath: file)
        XCTAssertEqual(mkfifo(file, 0o600), 0)
        let store = try Store.open(TestSupport.configuration(path, key: nil))
        defer { store.close() }
        XCTAssertThrowsError(try store.backup(to: TestSupport.temporaryPath("backup"))) { error in
            guard case .storeCorrupted(let reason) = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("is a FIFO, not a regular file"), reason)
        }
    }
}
