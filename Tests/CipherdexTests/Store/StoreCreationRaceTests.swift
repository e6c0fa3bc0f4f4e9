import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Two processes opening a missing folder with `createIfMissing` at once: the one that looked
/// before the other created the store (its `create` runs on a folder that is no longer empty)
/// never builds over that store, and never removes it when it fails.
final class StoreCreationRaceTests: XCTestCase {
    private func makeStore(_ path: String) throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try store.createCollection("notes").insert(JSONValue.object(["body": .string("acknowledged")]), id: "a")
        store.close()
    }

    func testACreateThatFindsAStoreMadeMeanwhileOpensIt() throws {
        let path = TestSupport.temporaryPath()
        try makeStore(path)
        let store = try Store.create(
            layout: StoreLayout(directory: path),
            configuration: TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        XCTAssertEqual(try store.collection("notes").get(id: "a")?.id, "a")
    }

    /// The key asked for to create opens the store made meanwhile: a person typing a passphrase
    /// is asked once.
    func testACreateThatFindsAStoreMadeMeanwhileAsksForTheKeyOnce() throws {
        let path = TestSupport.temporaryPath()
        try makeStore(path)
        let calls = Atomic<Int>(0)
        let store = try Store.create(
            layout: StoreLayout(directory: path),
            configuration: TestSupport.configuration(path) {
                calls.add(1, ordering: .relaxed)
                return try TestSupport.rawKey(1)()
            })
        defer { store.close() }
        XCTAssertEqual(try store.collection("notes").get(id: "a")?.id, "a")
        XCTAssertEqual(calls.load(ordering: .relaxed), 1)
    }

    func testACreateWithAnotherKeyLeavesTheStoreMadeMeanwhile() throws {
        let path = TestSupport.temporaryPath()
        try makeStore(path)
        let before = TestSupport.snapshot(path)
        XCTAssertThrowsCase(
            "keyInvalid",
            try Store.create(
                layout: StoreLayout(directory: path),
                configuration: TestSupport.configuration(path, key: TestSupport.rawKey(2))))
        XCTAssertEqual(TestSupport.snapshot(path), before)
    }

    func testACreateThatCannotTakeTheLockRemovesNothing() throws {
        let path = TestSupport.temporaryPath()
        try makeStore(path)
        let holder = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { holder.close() }
        XCTAssertThrowsCase(
            "storeLocked",
            try Store.create(
                layout: StoreLayout(directory: path),
                configuration: TestSupport.configuration(path, key: TestSupport.rawKey(1))))
        XCTAssertEqual(try holder.collection("notes").get(id: "a")?.id, "a")
        XCTAssertTrue(FileSystem.exists(path + "/metadata.json"))
        XCTAssertTrue(FileSystem.exists(path + "/store.db"))
    }

    /// `create` of the CLI: a store found, even one made after the caller looked, is refused,
    /// never opened and reported as created.
    func testOnlyANewStoreWillDoWhenAskedFor() throws {
        let path = TestSupport.temporaryPath()
        var configuration = TestSupport.configuration(path, key: TestSupport.rawKey(1))
        configuration.requiresNewStore = true
        try Store.open(configuration).close()
        let before = TestSupport.snapshot(path)
        XCTAssertThrowsExactly(StoreAlreadyExists(path: path), try Store.open(configuration))
        XCTAssertThrowsExactly(
            StoreAlreadyExists(path: path),
            try Store.create(layout: StoreLayout(directory: path), configuration: configuration))
        XCTAssertEqual(TestSupport.snapshot(path), before)
    }

    /// A store folder (or its lock file) removed between the open's first look and its lock is
    /// `notAStore`, saying so (concurrency audit: an untyped `system: open failed … ENOENT`).
    func testAFolderRemovedBeforeTheLockIsNotAStore() throws {
        let path = TestSupport.temporaryPath()
        XCTAssertThrowsError(try StoreLock(layout: StoreLayout(directory: path))) { error in
            guard case .notAStore(let folder, let reason)? = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertEqual(folder, path)
            XCTAssertTrue(reason.contains("removed while the store was being opened"), reason)
        }
    }

    /// A backup into the empty folder a `create` holds while it asks for its key is refused
    /// (`destinationFilledMeanwhile`), and the create goes on (multi-process audit 28: the backup
    /// renamed its copy over the folder, and the create wrote over it and removed it).
    func testABackupIntoTheFolderACreateHoldsIsRefused() throws {
        let source = TestSupport.temporaryPath()
        try makeStore(source)
        let path = TestSupport.temporaryPath()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let backupError = Mutex<Error?>(nil)
        let store = try Store.open(
            TestSupport.configuration(path) {
                let other = try Store.open(TestSupport.configuration(source, key: TestSupport.rawKey(1)))
                defer { other.close() }
                do { _ = try other.backup(to: path) } catch { backupError.withLock { $0 = error } }
                return try TestSupport.rawKey(2)()
            })
        defer { store.close() }
        XCTAssertEqual(
            backupError.withLock { $0.map { "\($0)" } }, "\(BackupError.destinationFilledMeanwhile(path: path))")
        XCTAssertThrowsError(try store.collection("notes").get(id: "a"), "the new store is empty")
        XCTAssertEqual(store.openedKeyslot, 1)
    }

    /// A create whose empty folder was replaced by another store while it asked for its key (a
    /// backup or restore of a build that did not take the folder's lock) stops with
    /// `changedMeanwhile`, leaving that store as it is.
    func testACreateWhoseFolderWasReplacedLeavesTheNewOneAlone() throws {
        let other = TestSupport.temporaryPath()
        try makeStore(other)
        let before = TestSupport.snapshot(other)
        let path = TestSupport.temporaryPath()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        XCTAssertThrowsError(
            try Store.open(
                TestSupport.configuration(path) {
                    XCTAssertEqual(rename(other, path), 0)
                    return try TestSupport.rawKey(2)()
                })
        ) { error in
            guard case .changedMeanwhile(let folder, _)? = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertEqual(folder, path)
        }
        XCTAssertEqual(TestSupport.snapshot(path), before)
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { reopened.close() }
        XCTAssertEqual(try reopened.collection("notes").get(id: "a")?.id, "a")
    }

    /// A create that waited for the lock of a folder a `delete` then removed looks again and
    /// creates the store (it held a lock on a removed folder and failed with an untyped "no such
    /// file": multi-process audit 28).
    func testACreateWhoseFolderWasRemovedWhileItWaitedCreatesTheStore() throws {
        for _ in 0..<5 {
            let path = TestSupport.temporaryPath()
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            let holder = try StoreLock(layout: StoreLayout(directory: path))
            let result = Mutex<Result<Store, Error>?>(nil)
            let opener = Thread {
                let outcome = Result { try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))) }
                result.withLock { $0 = outcome }
            }
            opener.start()
            usleep(30_000)
            XCTAssertEqual(rmdir(path), 0)
            holder.release()
            while result.withLock({ $0 == nil }) { usleep(1_000) }
            let store = try XCTUnwrap(result.withLock { $0 }).get()
            XCTAssertTrue(FileManager.default.fileExists(atPath: path + "/metadata.json"))
            store.close()
        }
    }
}
