import Foundation

extension Store {
    /// Replaces the key that opened the store with the one `newKey` supplies (called once): the
    /// keyslot the key given to `open` unlocked is replaced, in its place in the list, by a slot
    /// with a new number and the same label (none when it was `recovery`: the new key is not a
    /// recovery key); every other keyslot is kept.
    ///
    /// Instant whatever the store's size: only the data key is rewrapped, in one atomic metadata
    /// replacement, so after a crash at any instant exactly one of the old and the new key opens
    /// that slot. Afterwards the old key fails with `keyInvalid` (unless another slot holds it).
    /// Passphrase keys get the configuration's current `passphraseCost`, so this also raises
    /// the cost of a passphrase. When the opening slot was removed meanwhile, the new key gets
    /// a new slot.
    ///
    /// The data key itself does not change: someone who kept a copy of the old metadata file and
    /// the old key could still unwrap it (see ARCHITECTURE.md).
    ///
    /// Inside a transaction (on its thread) this throws `StoreError.insideTransaction`: a
    /// rotation cannot be rolled back with the transaction.
    public func rotateKey(to newKey: KeyProvider) throws {
        try rotateKey(to: newKey, faultPoint: { _ in })
    }

    /// `rotateKey` with a fault-injection point for crash tests and the async form's cancellation.
    func rotateKey(
        to newKey: KeyProvider, faultPoint: (AtomicWriteStep) throws -> Void, cancellation: WorkCancellation? = nil
    ) throws {
        guard isOpen else { throw StoreError.closed }
        try refuseInsideTransaction("rotateKey(to:)")
        guard let dataKey else {
            throw StoreError.notEncrypted(path: path)
        }
        let key = try newKey()
        let replaced = openedKeyslot
        let slotID = try updateMetadata(faultPoint: faultPoint, cancellation: cancellation) { updated in
            let slotID = (updated.keyslots.map(\.id).max() ?? 0) + 1
            let old = updated.keyslots.firstIndex { $0.id == replaced }
            // The label goes with the slot, except `recovery`: the new key is not a recovery key.
            let label = old.flatMap { updated.keyslots[$0].label }.flatMap { $0 == Keyslot.recoveryLabel ? nil : $0 }
            let others = updated.keyslots.filter { $0.id != replaced }
            try StoreMetadata.checkTotalKDFWork(others, adding: key, cost: configuration.passphraseCost)
            try Self.refuseKeyInAnotherSlot(key, among: others, storeID: updated.storeID)
            let slot = try Keyslot.seal(
                dataKey: dataKey, with: key, slotID: slotID, storeID: updated.storeID,
                cost: configuration.passphraseCost, label: label)
            if let old {
                updated.keyslots[old] = slot
            } else {
                guard updated.keyslots.count < StoreMetadata.maximumKeyslots else {
                    throw KeyError.tooManyKeyslots(StoreMetadata.maximumKeyslots)
                }
                updated.keyslots.append(slot)
            }
            return slotID
        }
        lifecycle.withLock { $0.openedKeyslotID = slotID }
    }
}
