import Foundation

extension Store {
    /// The data key and the id of the first keyslot `key` opens; `keyInvalid` when none.
    static func unwrapDataKey(metadata: StoreMetadata, key: EncryptionKey) throws -> (dataKey: SecureBytes, slotID: Int)
    {
        // A passphrase is tried against every passphrase slot: their work together is bounded
        // before any derivation (an edited metadata file asking for more would hold the open for
        // minutes). Only here: a raw or recovery key derives nothing, so a store whose slots
        // together ask for more (an older build's library allowed it) still opens with one, and
        // can drop a slot (upgrade audit 1: it was `metadataCorrupt` with any key).
        if key.kind == .passphrase {
            let work = StoreMetadata.totalKDFWork(metadata.keyslots)
            guard work <= StoreMetadata.maximumTotalKDFWork else {
                throw KeyError.unsupportedCost(
                    "the store's passphrase keyslots together ask for \(work >> 30) GiB-passes of Argon2id, more "
                        + "than an open spends (\(StoreMetadata.maximumTotalKDFWork >> 30)): open it with its key or "
                        + "recovery key and remove a passphrase slot (`cipherdex key remove`)")
            }
        }
        for slot in metadata.keyslots where slot.kind == key.kind {
            if let dataKey = try slot.unwrap(with: key, storeID: metadata.storeID) {
                guard dataKey.count == 32 else {
                    throw EncryptionError.metadataCorrupt(reason: "keyslot \(slot.id) holds a key of the wrong size")
                }
                return (dataKey, slot.id)
            }
        }
        // A passphrase that is not UTF-8 was repaired into U+FFFD by builds before 2026-12-06
        // when it came from an environment variable or the terminal: a store made so still opens.
        if let repaired = key.repairedLegacyPassphrase {
            return try unwrapDataKey(metadata: metadata, key: repaired)
        }
        throw EncryptionError.keyInvalid
    }
}
