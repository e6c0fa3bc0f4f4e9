import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

final class StoreKeyRotationTests: XCTestCase {
    private func makeStore(_ path: String, key: @escaping KeyProvider) throws -> Store {
        let store = try Store.open(TestSupport.configuration(path, key: key))
        try store.write { db in
            try db.execute("CREATE TABLE notes (body TEXT)")
            try db.execute("INSERT INTO notes VALUES ('kept across rotation')")
        }
        return store
    }

    private func body(_ store: Store) throws -> String? {
        try store.read { try $0.scalar("SELECT body FROM notes")?.textValue }
    }

    func testRotationSwitchesKeysAndOldKeyFails() throws {
        let path = TestSupport.temporaryPath()
        let store = try makeStore(path, key: TestSupport.rawKey(1))
        try store.write { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        let databaseBefore = FileManager.default.contents(atPath: path + "/store.db")
        try store.rotateKey(to: TestSupport.passphrase("new passphrase"))
        XCTAssertEqual(try body(store), "kept across rotation", "the open store keeps working")
        store.close()
        XCTAssertEqual(
            FileManager.default.contents(atPath: path + "/store.db"), databaseBefore,
            "rotation must not rewrite the database")
        XCTAssertThrowsCase("keyInvalid", try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))))
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.passphrase("new passphrase")))
        XCTAssertEqual(try body(reopened), "kept across rotation")
        XCTAssertEqual(try reopened.info().generation, 2)
    }

    func testRotationRaisesPassphraseCost() throws {
        let path = TestSupport.temporaryPath()
        let store = try makeStore(path, key: TestSupport.passphrase("p"))
        store.close()
        var configuration = TestSupport.configuration(path, key: TestSupport.passphrase("p"))
        configuration.passphraseCost = PassphraseCost(opsLimit: 2, memLimit: 16 << 20)
        let reopened = try Store.open(configuration)
        try reopened.rotateKey(to: TestSupport.passphrase("p"))
        XCTAssertEqual(try reopened.info().keyslots.first?.memLimit, 16 << 20)
        XCTAssertEqual(try reopened.info().keyslots.first?.opsLimit, 2)
    }

    func testRotationKilledAtEachStepLeavesExactlyOneWorkingKey() throws {
        for step in AtomicWriteStep.allCases {
            let path = TestSupport.temporaryPath()
            let store = try makeStore(path, key: TestSupport.rawKey(1))
            XCTAssertThrowsError(
                try store.rotateKey(to: TestSupport.rawKey(2)) { current in
                    if current == step { throw InjectedFault() }
                })
            store.close()  // the "killed" process's lock goes away with it
            // Capture the on-disk state as the crash left it, and try both keys on copies.
            let crashed = TestSupport.snapshot(path)
            var opened: [UInt8] = []
            for seed: UInt8 in [1, 2] {
                let copy = TestSupport.temporaryPath("copy")
                TestSupport.copyDirectory(path, to: copy)
                XCTAssertEqual(TestSupport.snapshot(copy), crashed)
                if let store = try? Store.open(TestSupport.configuration(copy, key: TestSupport.rawKey(seed))) {
                    XCTAssertEqual(try body(store), "kept across rotation")
                    opened.append(seed)
                }
            }
            let expected: [UInt8] = step == .renamed ? [2] : [1]
            XCTAssertEqual(opened, expected, "after a crash at \(step), exactly one key must open the store")
        }
    }

    func testRotatingUnencryptedStoreFails() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: nil))
        XCTAssertThrowsCase("notEncrypted", try store.rotateKey(to: TestSupport.rawKey(1)))
    }
}
