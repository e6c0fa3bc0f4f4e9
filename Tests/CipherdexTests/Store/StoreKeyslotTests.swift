import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

final class StoreKeyslotTests: XCTestCase {
    private func opens(_ path: String, _ key: @escaping KeyProvider) -> Bool {
        guard let store = try? Store.open(TestSupport.configuration(path, key: key)) else { return false }
        store.close()
        return true
    }

    func testEverySlotOpensAndARemovedOneStopsOpening() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        XCTAssertEqual(store.openedKeyslot, 1)
        XCTAssertEqual(try store.addKey(TestSupport.rawKey(2), label: "laptop"), 2)
        XCTAssertEqual(try store.addKey(TestSupport.passphrase("office passphrase")), 3)
        let (recoverySlot, recovery) = try store.addRecoveryKey()
        XCTAssertEqual(recoverySlot, 4)
        let slots = try store.keyslots()
        XCTAssertEqual(slots.map(\.id), [1, 2, 3, 4])
        XCTAssertEqual(slots.map(\.label), [nil, "laptop", nil, "recovery"])
        XCTAssertEqual(slots.map(\.kind), ["raw", "raw", "passphrase", "raw"])
        XCTAssertNotNil(slots[2].opsLimit)
        XCTAssertTrue(slots.allSatisfy { $0.createdAt != nil })
        store.close()

        let typed = recovery.formatted
        let recoveryProvider: KeyProvider = { try RecoveryKey(parsing: typed).key }
        let keys = [
            TestSupport.rawKey(1), TestSupport.rawKey(2), TestSupport.passphrase("office passphrase"), recoveryProvider,
        ]
        for key in keys {
            XCTAssertTrue(opens(path, key))
        }
        let again = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        XCTAssertEqual(again.openedKeyslot, 2)
        try again.removeKey(slot: 1)
        again.close()
        XCTAssertThrowsCase("keyInvalid", try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))))
        XCTAssertTrue(opens(path, TestSupport.rawKey(2)))
        XCTAssertTrue(opens(path, recoveryProvider))
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path + "/metadata.json")), as: UTF8.self)
        XCTAssertFalse(text.contains(typed), "the recovery key is never stored")
    }

    func testTheLastSlotAndUnknownSlotsAreRefused() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        XCTAssertThrowsError(try store.removeKey(slot: 1)) { XCTAssertEqual($0 as? KeyError, .lastKeyslot(1)) }
        XCTAssertThrowsError(try store.removeKey(slot: 9)) { XCTAssertEqual($0 as? KeyError, .noSuchKeyslot(9)) }
        XCTAssertThrowsError(try store.addKey(TestSupport.rawKey(2), label: "")) {
            guard case KeyError.invalidLabel = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try store.addKey(TestSupport.rawKey(2), label: "tab\there")) {
            guard case KeyError.invalidLabel = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(try store.keyslots().count, 1, "refused changes change nothing")
    }

    func testAtMostThirtyTwoSlots() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(1)))
        defer { store.close() }
        for seed in 2...32 { try store.addKey(TestSupport.rawKey(UInt8(seed))) }
        XCTAssertThrowsError(try store.addKey(TestSupport.rawKey(99))) {
            XCTAssertEqual($0 as? KeyError, .tooManyKeyslots(32))
        }
        XCTAssertEqual(try store.keyslots().count, 32)
    }

    /// A key that already opens a slot gets no second one (nor does a rekey to it): removing or
    /// replacing either slot would leave it working.
    func testAKeyThatAlreadyOpensASlotIsRefused() throws {
        let path = TestSupport.temporaryPath()
        var configuration = TestSupport.configuration(path, key: TestSupport.rawKey(1))
        configuration.passphraseCost = .minimumForTesting
        let store = try Store.open(configuration)
        defer { store.close() }
        try store.addKey(TestSupport.passphrase("second"))
        let metadata = FileManager.default.contents(atPath: path + "/metadata.json")
        XCTAssertThrowsError(try store.addKey(TestSupport.rawKey(1))) {
            XCTAssertEqual($0 as? KeyError, .keyAlreadyInSlot(1))
        }
        XCTAssertThrowsError(try store.addKey(TestSupport.passphrase("second"))) {
            XCTAssertEqual($0 as? KeyError, .keyAlreadyInSlot(2))
        }
        XCTAssertThrowsError(try store.rotateKey(to: TestSupport.passphrase("second"))) {
            XCTAssertEqual($0 as? KeyError, .keyAlreadyInSlot(2))
        }
        XCTAssertEqual(FileManager.default.contents(atPath: path + "/metadata.json"), metadata, "nothing changed")
        // The key that opened, given again, is a new salt for its own slot.
        XCTAssertNoThrow(try store.rotateKey(to: TestSupport.rawKey(1)))
        XCTAssertEqual(try store.keyslots().count, 2)
    }

    func testRekeyReplacesOnlyTheSlotThatOpened() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try store.addKey(TestSupport.rawKey(2), label: "spare")
        store.close()
        let spare = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        try spare.rotateKey(to: TestSupport.rawKey(3))
        XCTAssertEqual(try spare.keyslots().map(\.label), [nil, "spare"], "the replaced slot keeps its label")
        spare.close()
        XCTAssertTrue(opens(path, TestSupport.rawKey(1)), "the other slot is kept")
        XCTAssertFalse(opens(path, TestSupport.rawKey(2)))
        XCTAssertTrue(opens(path, TestSupport.rawKey(3)))
    }

    func testAddAndRemoveKilledAtEachStepLeaveTheOldOrTheNewSlots() throws {
        for step in AtomicWriteStep.allCases {
            let path = TestSupport.temporaryPath()
            let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
            try store.addKey(TestSupport.rawKey(2))
            XCTAssertThrowsError(
                try store.addKeyslot(label: nil, faultPoint: { if $0 == step { throw InjectedFault() } }) {
                    try EncryptionKey.raw(TestSupport.rawKeyBytes(3))
                })
            XCTAssertThrowsError(try store.removeKeyslot(1, faultPoint: { if $0 == step { throw InjectedFault() } }))
            store.close()
            XCTAssertEqual(opens(path, TestSupport.rawKey(3)), step == .renamed, "add killed at \(step)")
            XCTAssertTrue(opens(path, TestSupport.rawKey(2)))
            // A failure after the rename leaves the new file: the next change starts from it.
            XCTAssertEqual(opens(path, TestSupport.rawKey(1)), step != .renamed, "remove killed at \(step)")
        }
    }

    func testRekeyingTheRecoverySlotDropsItsLabel() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        let (_, recovery) = try store.addRecoveryKey()
        store.close()
        let opened = try Store.open(TestSupport.configuration(path, key: { recovery.key }))
        try opened.rotateKey(to: TestSupport.passphrase("a passphrase now"))
        XCTAssertEqual(try opened.keyslots().map(\.label), [nil, nil], "the passphrase is not a recovery key")
        XCTAssertEqual(try opened.keyslots().map(\.kind), ["raw", "passphrase"])
        opened.close()
    }

    /// Builds before 2026-12-06 repaired a passphrase that is not UTF-8 into U+FFFD when it came
    /// from an environment variable or the terminal: a store made so opens with the same bytes.
    func testAStoreSealedWithARepairedPassphraseOpensWithItsBytes() throws {
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9]
        let key: KeyProvider = { try latin1.withUnsafeBytes { try EncryptionKey.passphrase(bytes: $0) } }
        let legacy = TestSupport.temporaryPath()
        try Store.open(TestSupport.configuration(legacy, key: TestSupport.passphrase("caf\u{FFFD}"))).close()
        XCTAssertTrue(opens(legacy, key))
        let current = TestSupport.temporaryPath()
        try Store.open(TestSupport.configuration(current, key: key)).close()
        XCTAssertTrue(opens(current, key))
        XCTAssertFalse(opens(current, TestSupport.passphrase("caf\u{FFFD}")), "the bytes themselves are the key")
        // A passphrase file's bytes were never repaired: no second try for them.
        let file = TestSupport.temporaryPath("latin1")
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(latin1)))
        XCTAssertFalse(opens(legacy, { try EncryptionKey.passphrase(contentsOfFile: file) }))
    }

    func testCalibrationStaysWithinWhatAnOpenAccepts() throws {
        let cost = try PassphraseCost.calibrated(targetSeconds: 0.05, memory: 8 << 20)
        XCTAssertTrue(PassphraseCost.acceptedOpsLimits.contains(cost.opsLimit))
        XCTAssertTrue(PassphraseCost.acceptedMemLimits.contains(cost.memLimit))
        XCTAssertLessThanOrEqual(cost.memLimit, 8 << 20)
        XCTAssertEqual(try PassphraseCost.calibrated(targetSeconds: 0.05, memory: 8 << 20), cost, "measured once")
        XCTAssertThrowsError(try PassphraseCost.calibrated(targetSeconds: 0))
        XCTAssertThrowsError(try PassphraseCost.calibrated(targetSeconds: .infinity))
        XCTAssertThrowsError(try PassphraseCost.calibrated(targetSeconds: 1, memory: 2 << 30))
        // A target shorter than one pass over 1 MiB gets that pass, never less memory.
        let tiny = try PassphraseCost.calibrated(targetSeconds: 0.000_01)
        XCTAssertEqual(tiny, PassphraseCost(opsLimit: 1, memLimit: PassphraseCost.minimumCalibratedMemory))
    }
}
