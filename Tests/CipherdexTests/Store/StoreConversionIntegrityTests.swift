import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `encrypt` of an unencrypted store checks what it reads against the recorded content hashes:
/// a changed byte in a plaintext attachment fails the conversion (the store unchanged) rather
/// than being sealed, and so authenticated, as valid content.
final class StoreConversionIntegrityTests: XCTestCase {
    private func content(_ count: Int, seed: UInt64) -> Data {
        var state = seed
        return Data(
            (0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            })
    }

    func testEncryptRefusesADamagedPlaintextAttachmentAndChangesNothing() throws {
        let path = TestSupport.temporaryPath()
        let damaged: AttachmentToken
        do {
            let store = try Store.open(TestSupport.configuration(path, key: nil))
            defer { store.close() }
            _ = try store.addAttachment(content(100_000, seed: 1))
            damaged = try store.addAttachment(content(65_536, seed: 2))
            _ = try store.addAttachment(content(5, seed: 3))
        }
        let file = path + "/attachments/" + damaged.id
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[1000] ^= 1
        try bytes.write(to: URL(fileURLWithPath: file))
        let before = TestSupport.snapshot(path)

        XCTAssertThrowsError(
            try Store.encrypt(TestSupport.configuration(path, key: nil), newKey: TestSupport.rawKey(1))
        ) { error in
            XCTAssertEqual(error as? AttachmentError, .contentHashMismatch(id: damaged.id))
        }
        let after = TestSupport.snapshot(path)
        // (The open removes the empty `staging/` folder the additions left.)
        XCTAssertEqual(
            Set(after.keys), Set(before.keys).subtracting(["staging/"]), "nothing of the new generation is left")
        XCTAssertEqual(after["metadata.json"], before["metadata.json"])
        XCTAssertEqual(after["attachments/" + damaged.id], before["attachments/" + damaged.id])
        let store = try Store.open(TestSupport.configuration(path, key: nil))
        defer { store.close() }
        XCTAssertFalse(store.isEncrypted)
        XCTAssertEqual(try store.verify().problems.count, 1)

        // Repaired, the same store encrypts, and its content is what was added.
        bytes[1000] ^= 1
        try bytes.write(to: URL(fileURLWithPath: file))
        store.close()
        try Store.encrypt(TestSupport.configuration(path, key: nil), newKey: TestSupport.rawKey(1))
        let encrypted = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { encrypted.close() }
        XCTAssertEqual(try encrypted.attachmentData(damaged.id), content(65_536, seed: 2))
        XCTAssertTrue(try encrypted.verify().isHealthy)
    }
}
