import Dispatch

extension Store {
    /// The collection `name`. Nothing is created until the first insert or upsert; reading or
    /// querying a collection that was never created throws `DocumentError.unknownCollection`.
    /// Throws `invalidCollectionName` unless the name matches `[A-Za-z0-9_.-]{1,128}` (a new
    /// collection may not be named `.` or `..`).
    public func collection(_ name: String) throws -> DocumentCollection {
        try CollectionInfo.validateName(name)
        return DocumentCollection(name: name, store: self, transaction: nil)
    }

    /// Creates the collection `name` with an index on each of `indexedFields` (dotted paths
    /// such as `address.city`); throws `collectionExists` when it exists, unless `ifNotExists`:
    /// then it opens the existing one, adding an index for each of `indexedFields` it lacks
    /// (created or opened in one call, in one transaction).
    @discardableResult
    public func createCollection(_ name: String, indexedFields: [String] = [], ifNotExists: Bool = false) throws
        -> DocumentCollection
    {
        _ = try transaction { try $0.createCollection(name, indexedFields: indexedFields, ifNotExists: ifNotExists) }
        return try collection(name)
    }

    /// Names of every collection, sorted.
    public func collectionNames() throws -> [String] {
        try readDocuments { try $0.collectionNames() }
    }

    /// Drops a collection with all its documents; returns false when it did not exist.
    @discardableResult
    public func dropCollection(_ name: String) throws -> Bool {
        try transaction { try $0.dropCollection(name) }
    }

    /// The async form of `createCollection(_:indexedFields:ifNotExists:)`, on the store's writer
    /// queue (a task cancelled before it started gets `CancellationError`; once started, it
    /// completes).
    @discardableResult
    public func createCollectionAsync(_ name: String, indexedFields: [String] = [], ifNotExists: Bool = false)
        async throws -> DocumentCollection
    {
        try await BlockingWork.run(on: writerQueue) { _ in
            try self.createCollection(name, indexedFields: indexedFields, ifNotExists: ifNotExists)
        }
    }

    /// The async form of `dropCollection(_:)`, on the store's writer queue.
    @discardableResult
    public func dropCollectionAsync(_ name: String) async throws -> Bool {
        try await BlockingWork.run(on: writerQueue) { _ in try self.dropCollection(name) }
    }

    /// Runs `body` in one write transaction: every document operation done through `tx`
    /// commits when `body` returns and rolls back when it throws. Observers receive the
    /// changes only after the commit succeeds.
    ///
    /// Called on a thread already running a transaction of this store (from inside `body`, or
    /// through a collection's own operations there), it joins that transaction as a savepoint:
    /// a throwing inner `body` undoes only its own work.
    ///
    /// Inside `body`, on its thread, every store API either takes part in the transaction or
    /// throws `StoreError.insideTransaction` at once; none waits for the writer lock `body`
    /// holds. Document operations, `addAttachment` (all synchronous forms), `removeAttachment`,
    /// `createCollection`/`dropCollection` and the search library's writes join it; reads of
    /// documents and attachments (`attachment(_:)`, `attachmentToken(_:)`) see its uncommitted
    /// changes. `verify()`, `rotateKey(to:)` and `closeAndDelete()` throw `insideTransaction`.
    /// `close()` is deferred: the transaction goes on, commits or rolls back as usual, and the
    /// store closes as soon as it has ended.
    public func transaction<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        if let running = changeObservers.transactionOnCurrentThread() {
            return try Store.mappingDatabaseErrors { try running.savepoint { try body(running) } }
        }
        try refuseWhenReadOnly()
        var closeRequested = false
        // Runs once `pool.write` has released the writer, so closing cannot wait for it.
        defer { if closeRequested { close() } }
        return try Store.mappingDatabaseErrors {
            try pool.write { db in
                let transaction = StoreTransaction(store: self, connection: db)
                changeObservers.begin(transaction)
                defer {
                    transaction.finish()
                    closeRequested = changeObservers.end()
                }
                let result: T
                do {
                    result = try db.transaction {
                        let value = try body(transaction)
                        if let failure = transaction.failure { throw failure }
                        return value
                    }
                } catch {
                    transaction.rollbackActions.forEach { $0() }
                    throw error
                }
                transaction.afterCommitActions.forEach { $0() }
                changeObservers.publish(transaction.changes)
                return result
            }
        }
    }

    /// `transaction(_:)` for async code: `body` runs on the store's serial writer queue (GRDB's
    /// writer), so the calling task never blocks a thread of Swift's cooperative pool while it
    /// waits for the writer. A task cancelled before `body` started gets `CancellationError` at
    /// once and nothing is written; once started, the transaction commits or rolls back as a
    /// whole and its outcome is returned.
    public func performTransaction<T: Sendable>(
        _ body: @escaping @Sendable (StoreTransaction) throws -> T
    ) async throws -> T {
        try await BlockingWork.run(on: writerQueue) { _ in try self.transaction(body) }
    }

    /// Runs a read: on the calling thread's running transaction when there is one (so it sees
    /// that transaction's changes), otherwise on a reader snapshot.
    func readDocuments<T>(_ body: (DocumentStorage) throws -> T) throws -> T {
        try readJoiningTransaction { try body(DocumentStorage(db: $0)) }
    }

    /// Runs `body` on the calling thread's running transaction's connection when there is one
    /// (it sees that transaction's uncommitted changes), otherwise on a reader snapshot.
    func readJoiningTransaction<T>(_ body: (Connection) throws -> T) throws -> T {
        try Store.mappingDatabaseErrors {
            if let running = changeObservers.transactionOnCurrentThread() {
                return try body(running.connection)
            }
            return try read(body)
        }
    }

    /// Throws `StoreError.insideTransaction` when the calling thread runs a transaction of this
    /// store (for operations that cannot take part in it).
    func refuseInsideTransaction(_ operation: String) throws {
        if changeObservers.transactionOnCurrentThread() != nil {
            throw StoreError.insideTransaction(operation: operation)
        }
    }
}
