import Foundation

extension Store {
    /// Replaces the store's key with the one `newKey` supplies (called once).
    ///
    /// Instant whatever the store's size: only the data key is rewrapped, in one atomic metadata
    /// replacement, so after a crash at any instant exactly one of the old and the new key opens
    /// the store. Afterwards the old key fails with `keyInvalid`. Passphrase keys get the
    /// configuration's current `passphraseCost`, so this also raises the cost of a passphrase.
    ///
    /// The data key itself does not change: someone who kept a copy of the old metadata file and
    /// the old key could still unwrap it (see ARCHITECTURE.md).
    ///
    /// Inside a transaction (on its thread) this throws `StoreError.insideTransaction`: a
    /// rotation cannot be rolled back with the transaction.
    public func rotateKey(to newKey: KeyProvider) throws {
        try rotateKey(to: newKey, faultPoint: { _ in })
    }

    /// `rotateKey` with a fault-injection point for crash tests.
    func rotateKey(to newKey: KeyProvider, faultPoint: (AtomicWriteStep) throws -> Void) throws {
        guard isOpen else { throw StoreError.closed }
        try refuseInsideTransaction("rotateKey(to:)")
        guard let dataKey else {
            throw StoreError.notEncrypted(path: path)
        }
        let key = try newKey()
        try metadata.withLock { metadata in
            var updated = metadata
            let slotID = (metadata.keyslots.map(\.id).max() ?? 0) + 1
            updated.keyslots = [
                try Keyslot.seal(
                    dataKey: dataKey, with: key, slotID: slotID, storeID: metadata.storeID,
                    cost: configuration.passphraseCost)
            ]
            updated.generation += 1
            let bytes = try updated.seal(dataKey: dataKey)
            try Store.wrapSystem {
                try FileSystem.writeAtomically(bytes, to: layout.metadata, faultPoint: faultPoint)
            }
            metadata = updated
        }
    }
}
