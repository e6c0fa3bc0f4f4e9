import Foundation

extension Store {
    /// The data key and the id of the first keyslot `key` opens; `keyInvalid` when none.
    ///
    /// A passphrase is tried against the passphrase slots in their order, each derivation charged
    /// to `budget` (Argon2id passes times bytes, `StoreMetadata.maximumTotalKDFWork` for an open)
    /// before it runs: `KeyError.unsupportedCost` when the next slot would pass it. Costs are read
    /// before anything can authenticate them, so this bounds what an edited metadata file can make
    /// an open spend, while a passphrase whose slot comes early enough opens a store whose slots
    /// together ask for more (an older build's library allowed it). A raw or recovery key derives
    /// nothing and is never refused so.
    static func unwrapDataKey(
        metadata: StoreMetadata, key: EncryptionKey, budget: UInt64 = StoreMetadata.maximumTotalKDFWork
    ) throws -> (dataKey: SecureBytes, slotID: Int) {
        var spent: UInt64 = 0
        return try unwrapDataKey(metadata: metadata, key: key, budget: budget, spent: &spent)
    }

    /// `unwrapDataKey(metadata:key:budget:)`, adding each derivation's work to `spent` (shared
    /// with the retry of a repaired legacy passphrase, which derives over the slots again).
    private static func unwrapDataKey(
        metadata: StoreMetadata, key: EncryptionKey, budget: UInt64, spent: inout UInt64
    ) throws -> (dataKey: SecureBytes, slotID: Int) {
        for slot in metadata.keyslots where slot.kind == key.kind {
            let work = StoreMetadata.totalKDFWork([slot])
            let (total, overflow) = spent.addingReportingOverflow(work)
            guard !overflow, total <= budget else { throw costRefusal(spent: spent, budget: budget) }
            spent = total
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
            return try unwrapDataKey(metadata: metadata, key: repaired, budget: budget, spent: &spent)
        }
        throw EncryptionError.keyInvalid
    }

    /// The refusal of a passphrase whose next slot would take the open's Argon2id work past
    /// `budget`, `spent` being what the slots tried so far took.
    private static func costRefusal(spent: UInt64, budget: UInt64) -> KeyError {
        KeyError.unsupportedCost(
            "the passphrase opened none of the passphrase keyslots tried (\(spent >> 30) GiB-passes of Argon2id), and "
                + "the next would take the open past what it spends (\(budget >> 30)): open the store with its key "
                + "or recovery key and remove a costly passphrase slot (`cipherdex key remove`)")
    }
}
