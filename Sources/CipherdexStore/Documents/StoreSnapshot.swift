import Foundation

/// One consistent view of a store's documents, handed to the closure of `Store.read(_:)`: every
/// read through it sees the same committed state (one WAL read transaction), whatever commits
/// meanwhile — GRDB's `read { db in }`. It is read-only by construction: its collections have
/// no write operations.
///
/// The snapshot and its collections may only be used on the thread running the closure and
/// until it returns; other uses throw `DocumentError.transactionNotActive`.
public final class StoreSnapshot {
    /// The store.
    public let store: Store
    /// A reader connection inside `BEGIN DEFERRED` (or the running transaction's connection).
    let connection: Connection
    private let owner = pthread_self()
    private var isActive = true

    init(store: Store, connection: Connection) {
        self.store = store
        self.connection = connection
    }

    /// The collection `name` as this snapshot sees it. Reading one that does not exist in the
    /// snapshot throws `DocumentError.unknownCollection`.
    public func collection(_ name: String) throws -> SnapshotCollection {
        try checkActive()
        try CollectionInfo.validateName(name)
        return SnapshotCollection(base: DocumentCollection(name: name, store: store, transaction: nil, snapshot: self))
    }

    /// Names of every collection, sorted, as this snapshot sees them.
    public func collectionNames() throws -> [String] {
        try checkActive()
        return try Store.mappingDatabaseErrors { try DocumentStorage(db: connection).collectionNames() }
    }

    /// The recorded description of attachment `id` as this snapshot sees it, or nil.
    public func attachmentToken(_ id: String) throws -> AttachmentToken? {
        try checkActive()
        guard AttachmentStorage.isValidID(id) else { return nil }
        return try Store.mappingDatabaseErrors { try AttachmentStorage.token(id: id, db: connection) }
    }

    /// Throws unless called on the snapshot's thread while its closure runs.
    func checkActive() throws {
        // The owner is immutable; `isActive` is only touched on the owner's thread.
        guard pthread_equal(owner, pthread_self()) != 0, isActive else { throw DocumentError.transactionNotActive }
    }

    /// Ends the snapshot (its closure returned).
    func finish() {
        isActive = false
    }
}
