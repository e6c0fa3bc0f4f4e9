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
}
