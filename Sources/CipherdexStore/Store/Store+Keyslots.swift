import Foundation

extension Store {
    /// The store's keyslots: id, label, kind, creation time and Argon2id cost, never key
    /// material. Empty for an unencrypted store.
    public func keyslots() throws -> [StoreInfo.KeyslotInfo] {
        guard isOpen else { throw StoreError.closed }
        return metadata.withLock { $0.keyslots.map(StoreInfo.KeyslotInfo.init) }
    }

    /// The id of the keyslot the key given to `open` unlocked (nil for an unencrypted store).
    public var openedKeyslot: Int? { lifecycle.withLock { $0.openedKeyslotID } }

    /// Adds a keyslot for the key `newKey` supplies (called once), in one atomic metadata
    /// update; every other key keeps working. Passphrase keys get the configuration's
    /// `passphraseCost`. Returns the new slot's id.
    ///
    /// Throws `KeyError.tooManyKeyslots` when the store holds 32 slots, `KeyError.invalidLabel`
    /// for a label that is empty, longer than 64 bytes or holds control characters.
    @discardableResult
    public func addKey(_ newKey: KeyProvider, label: String? = nil) throws -> Int {
        try addKeyslot(label: label, operation: "addKey", faultPoint: { _ in }) { try newKey() }
    }

    /// Adds a keyslot for a new random recovery key labelled `label` (default `recovery`) and
    /// returns the key: show its `formatted` text to the user once, to be printed and kept
    /// offline. It opens the store as a raw key (`RecoveryKey(parsing:)`).
    public func addRecoveryKey(label: String = "recovery") throws -> (slot: Int, key: RecoveryKey) {
        let recovery = RecoveryKey.generate()
        let slot = try addKeyslot(label: label, operation: "addRecoveryKey", faultPoint: { _ in }) { recovery.key }
        return (slot, recovery)
    }

    /// Removes keyslot `slot` in one atomic metadata update; the key it held stops opening the
    /// store (`keyInvalid`), every other key keeps working. The last slot is never removed
    /// (`KeyError.lastKeyslot`); an unknown id throws `KeyError.noSuchKeyslot`.
    public func removeKey(slot: Int) throws {
        try removeKeyslot(slot, faultPoint: { _ in })
    }

    func addKeyslot(
        label: String?, operation: String = "addKey", faultPoint: (AtomicWriteStep) throws -> Void,
        cancellation: WorkCancellation? = nil, key: () throws -> EncryptionKey
    ) throws -> Int {
        guard isOpen else { throw StoreError.closed }
        try refuseInsideTransaction(operation)
        guard let dataKey else { throw StoreError.notEncrypted(path: path) }
        if let label { try Keyslot.checkLabel(label) }
        let count = metadata.withLock { $0.keyslots.count }
        guard count < StoreMetadata.maximumKeyslots else {
            throw KeyError.tooManyKeyslots(StoreMetadata.maximumKeyslots)
        }
        let newKey = try key()
        return try updateMetadata(faultPoint: faultPoint, cancellation: cancellation) { updated in
            guard updated.keyslots.count < StoreMetadata.maximumKeyslots else {
                throw KeyError.tooManyKeyslots(StoreMetadata.maximumKeyslots)
            }
            let slotID = (updated.keyslots.map(\.id).max() ?? 0) + 1
            try StoreMetadata.checkTotalKDFWork(updated.keyslots, adding: newKey, cost: configuration.passphraseCost)
            try Self.refuseKeyInAnotherSlot(newKey, among: updated.keyslots, storeID: updated.storeID)
            updated.keyslots.append(
                try Keyslot.seal(
                    dataKey: dataKey, with: newKey, slotID: slotID, storeID: updated.storeID,
                    cost: configuration.passphraseCost, label: label))
            return slotID
        }
    }

    /// Throws `KeyError.keyAlreadyInSlot` when `key` opens one of `keyslots` (those of its
    /// kind are tried, each at its own cost): two slots of one key would keep it working after
    /// either is replaced or removed.
    static func refuseKeyInAnotherSlot(_ key: EncryptionKey, among keyslots: [Keyslot], storeID: String) throws {
        for slot in keyslots where slot.kind == key.kind {
            if try slot.unwrap(with: key, storeID: storeID) != nil { throw KeyError.keyAlreadyInSlot(slot.id) }
        }
    }

    func removeKeyslot(
        _ slot: Int, faultPoint: (AtomicWriteStep) throws -> Void, cancellation: WorkCancellation? = nil
    ) throws {
        guard isOpen else { throw StoreError.closed }
        try refuseInsideTransaction("removeKey(slot:)")
        guard dataKey != nil else { throw StoreError.notEncrypted(path: path) }
        try updateMetadata(faultPoint: faultPoint, cancellation: cancellation) { updated in
            guard updated.keyslots.contains(where: { $0.id == slot }) else { throw KeyError.noSuchKeyslot(slot) }
            guard updated.keyslots.count > 1 else { throw KeyError.lastKeyslot(slot) }
            updated.keyslots.removeAll { $0.id == slot }
        }
        lifecycle.withLock { if $0.openedKeyslotID == slot { $0.openedKeyslotID = nil } }
    }

    /// Applies `change` to a copy of the metadata, bumps its generation, seals it with the data
    /// key and replaces the file atomically; the in-memory metadata changes only once the file
    /// has. Key changes are serialized by `keyChange`, which `close()` waits for; `metadata` is
    /// locked only to read and to swap the metadata, never across Argon2id or the write. A
    /// `cancellation` set by then is honoured after `change` (Argon2id cannot be interrupted) and
    /// before the write: nothing changes, and `CancellationError` is thrown.
    ///
    /// Nothing is written once the store is closed (`StoreError.closed`: its lock may be another
    /// instance's by then), nor over a metadata file another writer replaced meanwhile
    /// (`StoreError.changedMeanwhile`): this instance's copy is stale, and writing it would undo
    /// that writer's key change.
    @discardableResult
    func updateMetadata<T>(
        faultPoint: (AtomicWriteStep) throws -> Void, cancellation: WorkCancellation? = nil,
        _ change: (inout StoreMetadata) throws -> T
    ) throws -> T {
        try refuseWhenReadOnly()
        return try keyChange.run {
            guard isOpen else { throw StoreError.closed }
            var updated = metadata.withLock { $0 }
            let base = (storeID: updated.storeID, generation: updated.generation)
            let result = try change(&updated)
            try cancellation?.check()
            // Closed by this thread meanwhile (a `close()` on another waits for this change).
            guard isOpen else { throw StoreError.closed }
            try refuseWhenReplacedMeanwhile(storeID: base.storeID, generation: base.generation)
            updated.generation = base.generation + 1
            let bytes = try updated.seal(dataKey: dataKey)
            do {
                try Store.wrapSystem {
                    try FileSystem.writeAtomically(bytes, to: layout.metadata, faultPoint: faultPoint)
                }
            } catch {
                // A failure after the rename (a directory fsync, say) leaves the new file in
                // place: the next change must start from what is on disk, not from memory, and
                // the caller must hear that the change is in effect.
                guard let current = currentMetadataOnDisk() else { throw error }
                metadata.withLock { $0 = current }
                if current.generation == updated.generation, !(error is InjectedFault) {
                    throw StoreError.notDurable(error, path: layout.metadata, change: "the key change is in effect")
                }
                throw error
            }
            metadata.withLock { $0 = updated }
            return result
        }
    }

    /// Throws `StoreError.changedMeanwhile` when the metadata file on disk is not the one this
    /// instance last read or wrote (another store id or generation): someone else wrote it, and
    /// a change made from this instance's copy would undo theirs. A file that is missing or does
    /// not parse is not refused here (the write replaces it); one the system cannot read now
    /// throws its typed error.
    private func refuseWhenReplacedMeanwhile(storeID: String, generation: Int) throws {
        let onDisk: StoreMetadata?
        do {
            onDisk = try StoreMetadata.onDiskUnlessUnreadable(at: layout.metadata)
        } catch StoreError.changedMeanwhile {
            // Rewritten in place while it was read: changed meanwhile too.
            throw StoreError.changedMeanwhile(path: layout.metadata, operation: "change the keyslots in")
        }
        guard let onDisk else { return }
        guard onDisk.storeID == storeID, onDisk.generation == generation else {
            throw StoreError.changedMeanwhile(path: layout.metadata, operation: "change the keyslots in")
        }
    }

    /// The metadata file as it is now, when it parses and its MAC verifies with the data key.
    private func currentMetadataOnDisk() -> StoreMetadata? {
        guard let parsed = StoreMetadata.onDisk(at: layout.metadata),
            parsed.storeID == metadata.withLock({ $0.storeID })
        else { return nil }
        if let dataKey { guard (try? parsed.verifyMAC(dataKey: dataKey)) != nil else { return nil } }
        return parsed
    }
}

extension StoreInfo.KeyslotInfo {
    init(_ slot: Keyslot) {
        self.init(
            id: slot.id, kind: slot.kind.rawValue, opsLimit: slot.kdf?.opsLimit, memLimit: slot.kdf?.memLimit,
            label: slot.label, createdAt: slot.createdAt.map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }
}
