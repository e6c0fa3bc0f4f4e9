import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// What `Store.open` makes of a configuration that cannot be used: a typed error naming the
/// problem, before the key provider is asked and before anything on disk is looked at or created.
final class StoreConfigurationTests: XCTestCase {
    /// A provider that records being called.
    private func countingKey(_ calls: LockedCounter) -> KeyProvider {
        let bytes = TestSupport.rawKeyBytes(4)
        return {
            calls.increment()
            return try EncryptionKey.raw(bytes)
        }
    }

    func testEmptyPathIsInvalidPath() async throws {
        let calls = LockedCounter()
        let configuration = StoreConfiguration(path: "", keyProvider: countingKey(calls))
        for error in [openError(configuration), await openAsyncError(configuration)] {
            XCTAssertEqual(error as? StoreError, .invalidPath(path: "", reason: "the path is empty"))
            XCTAssertEqual(error?.localizedDescription, #"invalid store path "": the path is empty"#)
        }
        XCTAssertEqual(calls.value, 0)
    }

    func testPathWithNULIsInvalidPathAndCreatesNothing() throws {
        let parent = TestSupport.temporaryPath("parent")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: false)
        // The system would cut the path at the NUL and create `parent/a`.
        let error = openError(StoreConfiguration(path: parent + "/a\u{0}b"))
        XCTAssertEqual(
            error as? StoreError, .invalidPath(path: parent + "/a\u{0}b", reason: "the path contains a NUL character"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent), [])
    }

    func testMissingParentFolderIsParentFolderMissingAndCreatesNothing() async throws {
        let root = TestSupport.temporaryPath("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let path = root + "/myapp/store"
        let calls = LockedCounter()
        let configuration = StoreConfiguration(path: path, keyProvider: countingKey(calls))
        for error in [openError(configuration), await openAsyncError(configuration)] {
            XCTAssertEqual(error as? StoreError, .parentFolderMissing(path: path, parent: root + "/myapp"))
            let message = error?.localizedDescription ?? ""
            XCTAssertTrue(message.contains("the folder \(root)/myapp does not exist"), message)
        }
        XCTAssertEqual(calls.value, 0, "the key provider is not asked")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root), [])
        // With the folder there, the same configuration creates the store.
        try FileManager.default.createDirectory(atPath: root + "/myapp", withIntermediateDirectories: false)
        try Store.open(configuration).close()
        XCTAssertTrue(Store.exists(at: path))
    }

    /// A store whose folder is too deep for SQLite to open its files (a path of 512 bytes or
    /// more) is `invalidPath` saying so, not a damaged store; one at the longest path works.
    func testAPathTooLongForSQLiteIsInvalidPath() throws {
        var folder = TestSupport.temporaryPath("deep")
        while folder.utf8.count < 600 { folder += "/" + String(repeating: "d", count: 100) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let tooLong = String((folder + "/store").utf8.prefix(StoreConfiguration.longestDirectoryPath + 1))!
        let calls = LockedCounter()
        let error = openError(StoreConfiguration(path: tooLong, keyProvider: countingKey(calls)))
        guard case .invalidPath(let path, let reason) = error as? StoreError else {
            return XCTFail("\(String(describing: error))")
        }
        XCTAssertEqual(path, tooLong)
        XCTAssertTrue(reason.contains("SQLite opens no file whose path is longer than 511 bytes"), reason)
        XCTAssertEqual(calls.value, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: tooLong))

        let longest = String(tooLong.dropLast())
        let store = try Store.open(StoreConfiguration(path: longest, keyProvider: countingKey(calls)))
        try store.createCollection("notes").insert(JSONValue.object(["a": .number(1)]), id: "one")
        store.close()
        let again = try Store.open(StoreConfiguration(path: longest, keyProvider: countingKey(calls)))
        XCTAssertEqual(try again.collection("notes").count(), 1)
        again.close()
    }

    func testALoopOfSymbolicLinksIsInvalidPath() throws {
        let root = TestSupport.temporaryPath("loop")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        XCTAssertEqual(symlink(root + "/b", root + "/a"), 0)
        XCTAssertEqual(symlink(root + "/a", root + "/b"), 0)
        XCTAssertEqual(
            openError(StoreConfiguration(path: root + "/a")) as? StoreError,
            .invalidPath(path: root + "/a", reason: "its symbolic links form a loop"))
        // A name in the path longer than the file system allows (255 bytes).
        let long = root + "/" + String(repeating: "n", count: 300)
        XCTAssertEqual(
            openError(StoreConfiguration(path: long)) as? StoreError,
            .invalidPath(path: long, reason: "it is longer than the system allows"))
    }

    func testParentFolderRemovedWhileTheKeyIsAskedForIsParentFolderMissing() throws {
        let root = TestSupport.temporaryPath("root")
        try FileManager.default.createDirectory(atPath: root + "/myapp", withIntermediateDirectories: true)
        let path = root + "/myapp/store"
        let bytes = TestSupport.rawKeyBytes(4)
        // The open looks for the folder before it asks for the key, and creates the store after.
        let configuration = StoreConfiguration(
            path: path,
            keyProvider: {
                try FileManager.default.removeItem(atPath: root + "/myapp")
                return try EncryptionKey.raw(bytes)
            })
        XCTAssertEqual(
            openError(configuration) as? StoreError, .parentFolderMissing(path: path, parent: root + "/myapp"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root), [])
    }

    func testNonsensicalSettingsAreInvalidConfigurationBeforeAnythingIsCreated() async throws {
        let path = TestSupport.temporaryPath()
        let calls = LockedCounter()
        let cases: [(StoreConfiguration, String, String)] = [
            (
                StoreConfiguration(path: path, keyProvider: countingKey(calls), maximumReaders: 0),
                "maximumReaders", "it must be at least 1 (it is 0)"
            ),
            (
                StoreConfiguration(path: path, keyProvider: countingKey(calls), maximumReaders: -3),
                "maximumReaders", "it must be at least 1 (it is -3)"
            ),
            (
                StoreConfiguration(path: path, keyProvider: countingKey(calls), cacheSizeKiB: -1),
                "cacheSizeKiB", "it must be 0 or more (it is -1)"
            ),
        ]
        for (configuration, setting, reason) in cases {
            for error in [openError(configuration), await openAsyncError(configuration)] {
                XCTAssertEqual(error as? StoreError, .invalidConfiguration(setting: setting, reason: reason))
                XCTAssertEqual(
                    error?.localizedDescription,
                    "invalid StoreConfiguration.\(setting): \(reason); nothing was opened or created")
            }
        }
        XCTAssertEqual(calls.value, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        // The edges are fine.
        try Store.open(StoreConfiguration(path: path, maximumReaders: 1, cacheSizeKiB: 0)).close()
    }

    func testInvalidSettingOfAnOpenStoreIsNotTakenForItsLock() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: nil))
        defer { store.close() }
        // The lock is never tried: the setting is what is wrong.
        XCTAssertThrowsError(try Store.open(StoreConfiguration(path: path, maximumReaders: 0))) {
            XCTAssertEqual(
                $0 as? StoreError,
                .invalidConfiguration(setting: "maximumReaders", reason: "it must be at least 1 (it is 0)"))
        }
    }

    func testInitializerTakesReadOnly() throws {
        let path = TestSupport.temporaryPath()
        try Store.open(StoreConfiguration(path: path)).close()
        let configuration = StoreConfiguration(path: path, readOnly: true)
        XCTAssertTrue(configuration.readOnly)
        XCTAssertFalse(StoreConfiguration(path: path).readOnly)
        let store = try Store.open(configuration)
        defer { store.close() }
        XCTAssertTrue(store.isReadOnly)
    }

    private func openError(_ configuration: StoreConfiguration) -> Error? {
        do {
            try Store.open(configuration).close()
            return nil
        } catch {
            return error
        }
    }

    private func openAsyncError(_ configuration: StoreConfiguration) async -> Error? {
        do {
            try await Store.openAsync(configuration).close()
            return nil
        } catch {
            return error
        }
    }
}
