@testable import CipherdexStore

extension TestSupport {
    /// Adds passphrase slots `ids` at the largest cost an open accepts, sealed without their
    /// derivation (never unwrapped): a store whose slots together pass the Argon2id cap.
    static func addCostlyPassphraseSlots(_ ids: ClosedRange<Int>, to store: Store) throws {
        try store.updateMetadata(faultPoint: { _ in }) { updated in
            let base = updated.keyslots[0]
            for id in ids {
                var slot = base
                slot.id = id
                slot.kind = .passphrase
                slot.kdf = Keyslot.PassphraseKDF(
                    algorithm: "argon2id13", opsLimit: PassphraseCost.acceptedOpsLimits.upperBound,
                    memLimit: PassphraseCost.acceptedMemLimits.upperBound,
                    salt: Base64Bytes(Array(repeating: 1, count: 16)))
                updated.keyslots.append(slot)
            }
        }
    }
}
