extension Store {
    /// The async form of `rotateKey(to:)`: the key provider, Argon2id for a passphrase and the
    /// metadata write run on Cipherdex's own queue, never on Swift's cooperative pool.
    ///
    /// Cancellation: the key provider and Argon2id cannot be interrupted; a task cancelled before
    /// the metadata is written gets `CancellationError` and nothing changes (the old key still
    /// opens the store). Once the write has started the change completes and is returned.
    public func rotateKeyAsync(to newKey: @escaping KeyProvider) async throws {
        try await BlockingWork.run { cancellation in
            try self.rotateKey(to: newKey, faultPoint: { _ in }, cancellation: cancellation)
        }
    }

    /// The async form of `addKey(_:label:)`, cancelled as `rotateKeyAsync(to:)` is: before the
    /// metadata is written nothing changes and `CancellationError` is thrown.
    @discardableResult
    public func addKeyAsync(_ newKey: @escaping KeyProvider, label: String? = nil) async throws -> Int {
        try await BlockingWork.run { cancellation in
            try self.addKeyslot(label: label, faultPoint: { _ in }, cancellation: cancellation) { try newKey() }
        }
    }

    /// The async form of `addRecoveryKey(label:)`, cancelled as `rotateKeyAsync(to:)` is: a
    /// recovery key whose slot was not written is never returned.
    public func addRecoveryKeyAsync(label: String = "recovery") async throws -> (slot: Int, key: RecoveryKey) {
        try await BlockingWork.run { cancellation in
            let recovery = RecoveryKey.generate()
            let slot = try self.addKeyslot(
                label: label, operation: "addRecoveryKey", faultPoint: { _ in }, cancellation: cancellation
            ) {
                recovery.key
            }
            return (slot, recovery)
        }
    }

    /// The async form of `removeKey(slot:)`, cancelled as `rotateKeyAsync(to:)` is.
    public func removeKeyAsync(slot: Int) async throws {
        try await BlockingWork.run { cancellation in
            try self.removeKeyslot(slot, faultPoint: { _ in }, cancellation: cancellation)
        }
    }
}
