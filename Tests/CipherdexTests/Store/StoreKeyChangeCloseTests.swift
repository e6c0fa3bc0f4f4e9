import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import CipherdexStore

/// A key change and a `close()` of the same store (API audit 27, finding 1): no metadata is
/// written once the lock may be another instance's, and no stale copy is written over another
/// writer's change.
final class StoreKeyChangeCloseTests: XCTestCase {
    private var path = ""

    override func setUp() {
        path = TestSupport.temporaryPath("keychange-close")
    }

    private func metadataBytes() -> Data? {
        FileManager.default.contents(atPath: path + "/metadata.json")
    }

    private func opens(_ key: @escaping KeyProvider) -> Bool {
        guard let store = try? Store.open(TestSupport.configuration(path, key: key)) else { return false }
        store.close()
        return true
    }

    /// A key provider that closes the store and lets another instance open it: the rotation
    /// throws `closed` and writes nothing (it rewrote the metadata under the other's lock).
    func testARotationWhoseProviderClosesTheStoreWritesNothing() throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        let before = metadataBytes()
        let other = Mutex<Store?>(nil)
        let configuration = TestSupport.configuration(path, key: TestSupport.rawKey(1))
        XCTAssertThrowsError(
            try store.rotateKey(to: {
                store.close()
                other.withLock { $0 = try? Store.open(configuration) }
                return try TestSupport.rawKey(2)()
            })
        ) { XCTAssertEqual($0 as? StoreError, .closed) }
        XCTAssertNotNil(other.withLock { $0 }, "the other instance opened the store once it was closed")
        XCTAssertEqual(metadataBytes(), before)
        other.withLock { $0?.close() }
        XCTAssertTrue(opens(TestSupport.rawKey(1)))
        XCTAssertFalse(opens(TestSupport.rawKey(2)))
    }

    /// `addKey` whose provider closes the store: `closed`, nothing written.
    func testAnAddWhoseProviderClosesTheStoreWritesNothing() throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        let before = metadataBytes()
        XCTAssertThrowsError(
            try store.addKey({
                store.close()
                return try TestSupport.rawKey(2)()
            })
        ) { XCTAssertEqual($0 as? StoreError, .closed) }
        XCTAssertEqual(metadataBytes(), before)
        XCTAssertFalse(opens(TestSupport.rawKey(2)))
    }

    /// A `close()` reached on the thread running a key change (inside it) neither waits for
    /// itself nor lets the change write: `closed`, the metadata unchanged.
    func testACloseInsideAKeyChangeOnItsThreadDoesNotHang() throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        let before = metadataBytes()
        XCTAssertThrowsError(try store.updateMetadata(faultPoint: { _ in }) { _ in store.close() }) {
            XCTAssertEqual($0 as? StoreError, .closed)
        }
        XCTAssertEqual(metadataBytes(), before)
        XCTAssertFalse(store.isOpen)
    }

    /// A `close()` from another thread while `addKey`'s Argon2id runs waits for the change: an
    /// instance opened right after the close sees the new slot, and its own key change keeps it
    /// (it wrote its stale copy back, and the new passphrase was `keyInvalid`).
    func testACloseFromAnotherThreadWaitsForTheRunningKeyChange() throws {
        var configuration = TestSupport.configuration(path, key: TestSupport.rawKey(1))
        configuration.passphraseCost = PassphraseCost(opsLimit: 3, memLimit: 64 << 20)
        let store = try Store.open(configuration)
        let spare = try store.addKey(TestSupport.rawKey(3), label: "spare")
        let asked = DispatchSemaphore(value: 0)
        let reopened = DispatchSemaphore(value: 0)
        let other = StoreBox()
        let path = self.path
        DispatchQueue.global().async {
            asked.wait()
            Thread.sleep(forTimeInterval: 0.02)  // the derivation is running
            store.close()
            other.store.withLock { $0 = try? Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))) }
            reopened.signal()
        }
        let added = Result {
            try store.addKey({
                asked.signal()
                return try EncryptionKey.passphrase("the new passphrase")
            })
        }
        reopened.wait()
        let b = try XCTUnwrap(other.store.withLock { $0 }, "the other instance opens once the store is closed")
        if case .success(let slot) = added {
            XCTAssertTrue(try b.keyslots().contains { $0.id == slot }, "the other instance missed the added slot")
        } else if case .failure(let error) = added {
            XCTAssertEqual(error as? StoreError, .closed)
        }
        try b.removeKey(slot: spare)
        b.close()
        if case .success = added {
            XCTAssertTrue(opens(TestSupport.passphrase("the new passphrase")), "the added key was undone")
        }
        XCTAssertTrue(opens(TestSupport.rawKey(1)))
    }

    /// The backstop: a metadata file another writer replaced since this instance read it is not
    /// overwritten with the stale copy (`changedMeanwhile`), whatever the key change.
    func testAKeyChangeOverMetadataReplacedMeanwhileIsRefused() throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        var onDisk = try XCTUnwrap(StoreMetadata.onDisk(at: path + "/metadata.json"))
        onDisk.generation += 1
        let replaced = Data(try onDisk.seal(dataKey: store.dataKey))
        try replaced.write(to: URL(fileURLWithPath: path + "/metadata.json"))
        XCTAssertThrowsError(try store.addKey(TestSupport.rawKey(2))) { error in
            guard case StoreError.changedMeanwhile = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try store.rotateKey(to: TestSupport.rawKey(3))) { error in
            guard case StoreError.changedMeanwhile = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(metadataBytes(), replaced)
    }
}

/// A store another thread opens, handed back to the test.
private final class StoreBox: Sendable {
    let store = Mutex<Store?>(nil)
}
