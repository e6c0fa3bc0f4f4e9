extension Store {
    /// The async form of `open(_:)`, for async code (named apart so that `try Store.open(…)`
    /// keeps compiling inside async functions). The key provider, the key derivation (Argon2id
    /// for a passphrase: the slow part) and the checks run on Cipherdex's own queue, never on
    /// Swift's cooperative pool.
    ///
    /// Cancellation: the key derivation cannot be interrupted, so a cancelled task is not kept
    /// waiting for it — it gets `CancellationError` at once, and the open is abandoned in the
    /// background: it stops right after the derivation, before the database is touched (an
    /// existing store is left byte-for-byte unchanged), or, if it got further, the store it
    /// opened (or created) is closed. Cancelled before or during the key provider and the
    /// derivation, it lets go of the store's lock at once; cancelled later, it keeps the lock
    /// until that store is closed (an open of the same store meanwhile is `storeLocked`).
    /// Store only (see `open(_:)`); disfavoured so that `Cipherdex`'s (with search) is the one
    /// called where it is imported.
    @_disfavoredOverload
    public static func openAsync(_ configuration: StoreConfiguration) async throws -> Store {
        try await BlockingWork.run(whenCancelled: .abandon, discard: { $0.close() }) { cancellation in
            try Store.open(configuration, cancellation: cancellation)
        }
    }
}

extension Store {
    /// The async form of `close()`: the task suspends (no thread waits) until queued documents
    /// are finished, then the rest of the close (waiting for running work, the checkpoint) runs
    /// on Cipherdex's own queue, never on Swift's cooperative pool. Cancellation does not stop a
    /// close that has started (the store closes, and the task gets its end).
    public func closeAsync() async {
        let open = lifecycle.withLock { state in state.lock == nil ? [] : Array(state.featureStates.values) }
        for state in open { await state.finishQueuedWorkAsync() }
        await withCheckedContinuation { continuation in
            BlockingWork.queue.async {
                self.close()
                continuation.resume()
            }
        }
    }

    /// The async form of `closeAndDelete()`, on the store's writer queue: a task cancelled while
    /// it waits there behind another write gets `CancellationError`, and the store stays.
    public func closeAndDeleteAsync() async throws {
        try await BlockingWork.run(on: writerQueue) { _ in try self.closeAndDelete() }
    }

    /// The async form of `delete(at:)`, on Cipherdex's own queue.
    public static func deleteAsync(at path: String) async throws {
        try await BlockingWork.run { _ in try delete(at: path) }
    }
}
