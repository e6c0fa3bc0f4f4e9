extension Store {
    /// Runs `body` with one consistent snapshot of the store (GRDB's `read { db in }`): every
    /// read through the snapshot sees the same committed state, whatever other threads commit
    /// meanwhile, so several documents read together are never from different moments. The
    /// snapshot starts at the first read through it, not when `body` is entered (as SQLite's
    /// read transactions do): what commits between the two is seen. Reads
    /// run in parallel with each other and with the writer. Called inside `transaction(_:)` on
    /// its thread, the snapshot is that transaction's view (with its uncommitted changes); called
    /// inside another `read` on its thread (directly, or through a collection or a search), it
    /// joins that read's snapshot and takes no second reader.
    public func read<T>(_ body: (StoreSnapshot) throws -> T) throws -> T {
        try readJoiningTransaction { connection in
            let snapshot = StoreSnapshot(store: self, connection: connection)
            defer { snapshot.finish() }
            return try body(snapshot)
        }
    }

    /// The async form of `read(_:)`: `body` runs on Cipherdex's reader queue, never blocking a
    /// thread of Swift's cooperative pool. A task cancelled before `body` started gets
    /// `CancellationError` at once.
    public func readAsync<T: Sendable>(_ body: @escaping @Sendable (StoreSnapshot) throws -> T) async throws -> T {
        try await BlockingWork.run { _ in try self.read(body) }
    }
}
