import Foundation
import XCTest

@testable import CipherdexStore

/// The Argon2id budget of an open, charged slot by slot as a passphrase is tried, and what adding
/// a key to a store over it may do (review 27, finding 2).
final class StoreKeyslotCostTests: XCTestCase {
    /// A passphrase-only store whose slots together pass the cap opens with the passphrase of its
    /// first, cheap slot (every passphrase was refused before any derivation).
    func testThePassphraseOfAnEarlyCheapSlotOpensAStoreOverTheCap() throws {
        let path = TestSupport.temporaryPath("costly")
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.passphrase("right")))
        try TestSupport.addCostlyPassphraseSlots(2...6, to: store)
        XCTAssertFalse(try store.keyslots().contains { $0.kind == "raw" })
        store.close()
        let started = Date()
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.passphrase("right")))
        XCTAssertEqual(reopened.openedKeyslot, 1)
        reopened.close()
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "only the first slot was derived")
    }

    /// On a store over the cap, a raw or recovery key (no derivation) is added; a passphrase that
    /// keeps the total over the cap is still refused before its derivation.
    func testARawOrRecoveryKeyIsAddedToAStoreOverTheCap() throws {
        let path = TestSupport.temporaryPath("costly-raw")
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        try TestSupport.addCostlyPassphraseSlots(2...6, to: store)
        XCTAssertNoThrow(try store.addRecoveryKey(label: "recovery"))
        XCTAssertNoThrow(try store.addKey(TestSupport.rawKey(2)))
        XCTAssertNoThrow(try store.rotateKey(to: TestSupport.rawKey(3)))
        let before = TestSupport.snapshot(path)
        XCTAssertThrowsError(try store.addKey(TestSupport.passphrase("another"))) { error in
            guard case KeyError.unsupportedCost = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(TestSupport.snapshot(path), before)
    }

    /// A metadata of `count` passphrase slots at the cheapest cost, each for its own passphrase
    /// `p1`, `p2`…
    private func cheapPassphraseSlots(_ count: Int) throws -> StoreMetadata {
        let path = TestSupport.temporaryPath("cheap")
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.passphrase("p1")))
        for index in 2...count { try store.addKey(TestSupport.passphrase("p\(index)")) }
        store.close()
        return try XCTUnwrap(StoreMetadata.onDisk(at: path + "/metadata.json"))
    }

    /// The budget is charged slot by slot, in order: a passphrase whose slot fits opens, a wrong
    /// one is refused (`unsupportedCost`) at the first slot that would pass it, not `keyInvalid`.
    func testTheBudgetIsChargedAsSlotsAreTried() throws {
        let metadata = try cheapPassphraseSlots(3)
        let slotWork = StoreMetadata.totalKDFWork([metadata.keyslots[0]])
        let key = try EncryptionKey.passphrase("p2")
        XCTAssertEqual(try Store.unwrapDataKey(metadata: metadata, key: key, budget: 2 * slotWork).slotID, 2)
        XCTAssertThrowsError(try Store.unwrapDataKey(metadata: metadata, key: key, budget: slotWork)) { error in
            guard case KeyError.unsupportedCost = error else { return XCTFail("\(error)") }
        }
        let wrong = try EncryptionKey.passphrase("wrong")
        XCTAssertThrowsError(try Store.unwrapDataKey(metadata: metadata, key: wrong, budget: 3 * slotWork)) {
            XCTAssertEqual($0 as? EncryptionError, .keyInvalid)
        }
        XCTAssertThrowsError(try Store.unwrapDataKey(metadata: metadata, key: wrong, budget: 2 * slotWork)) { error in
            guard case KeyError.unsupportedCost = error else { return XCTFail("\(error)") }
        }
    }

    /// The retry of a non-UTF-8 passphrase as builds before 2026-12-06 repaired it derives over
    /// the slots again: charged to the same budget.
    func testTheLegacyPassphraseRetryIsChargedToTheSameBudget() throws {
        let metadata = try cheapPassphraseSlots(2)
        let slotWork = StoreMetadata.totalKDFWork([metadata.keyslots[0]])
        let key = try [UInt8]([0x70, 0xFF, 0x31]).withUnsafeBytes { try EncryptionKey.passphrase(bytes: $0) }
        XCTAssertNotNil(key.repairedLegacyPassphrase)
        XCTAssertThrowsError(try Store.unwrapDataKey(metadata: metadata, key: key, budget: 4 * slotWork)) {
            XCTAssertEqual($0 as? EncryptionError, .keyInvalid)
        }
        XCTAssertThrowsError(try Store.unwrapDataKey(metadata: metadata, key: key, budget: 3 * slotWork)) { error in
            guard case KeyError.unsupportedCost = error else { return XCTFail("\(error)") }
        }
    }
}
