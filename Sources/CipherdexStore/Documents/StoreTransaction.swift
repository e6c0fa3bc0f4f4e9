import Foundation

/// A write transaction of a store, handed to the closure of `Store.transaction(_:)`.
///
/// Collections obtained from it (`collection(_:)`) run on the transaction's writer connection:
/// they see its uncommitted changes, and everything they do commits or rolls back together.
/// An operation that fails a check (bad id or JSON, duplicate, unknown collection) fails before
/// it writes, so the closure may catch the error and go on; an operation that fails after it has
/// written (a database error) dooms the transaction, which then rolls back as a whole.
///
/// The transaction and its collections may only be used on the thread running the closure and
/// until it returns; other uses throw `DocumentError.transactionNotActive`. Further features
/// (attachments) extend this type with their own operations.
public final class StoreTransaction {
    /// The store.
    public let store: Store
    /// The writer connection, inside `BEGIN IMMEDIATE`.
    package let connection: Connection
    private let owner = pthread_self()
    private var isActive = true
    private var savepointDepth = 0
    /// Changes to publish once the transaction commits, in order.
    private(set) var changes: [DocumentChange] = []
    /// File work to do after COMMIT (unlinking removed attachments).
    private(set) var afterCommitActions: [() -> Void] = []
    /// File work to undo on ROLLBACK (files made visible by this transaction).
    private(set) var rollbackActions: [() -> Void] = []

    init(store: Store, connection: Connection) {
        self.store = store
        self.connection = connection
    }

    /// The collection `name`, bound to this transaction. Like `Store.collection(_:)`, it does
    /// not create the collection; the first insert or upsert does.
    public func collection(_ name: String) throws -> DocumentCollection {
        try checkActive()
        try CollectionInfo.validateName(name)
        return DocumentCollection(name: name, store: store, transaction: self)
    }

    /// Creates a collection with `indexedFields` (dotted paths); throws `collectionExists` when
    /// it exists, unless `ifNotExists` (GRDB's `create(table:options: .ifNotExists)`): then the
    /// existing collection is returned, with an index added for each of `indexedFields` it lacks.
    @discardableResult
    public func createCollection(_ name: String, indexedFields: [String] = [], ifNotExists: Bool = false) throws
        -> DocumentCollection
    {
        try CollectionInfo.validateName(name)
        let fields = try indexedFields.map(FieldPath.init)
        guard Set(fields).count == fields.count else {
            throw DocumentError.indexAlreadyDeclared(collection: name, field: Self.firstDuplicate(fields))
        }
        try savepoint {
            let storage = DocumentStorage(db: connection)
            guard ifNotExists, var info = try storage.collection(name) else {
                try storage.createCollection(CollectionInfo(name: name, indexedFields: fields))
                return
            }
            for field in fields where !info.indexedFields.contains(field) {
                info.indexedFields.append(field)
                try storage.saveIndexedFields(info)
                try storage.buildIndex(info, field: field)
            }
        }
        return DocumentCollection(name: name, store: store, transaction: self)
    }

    /// Drops a collection and its documents (observers get a `.remove` per document); returns
    /// false when it did not exist.
    @discardableResult
    public func dropCollection(_ name: String) throws -> Bool {
        try CollectionInfo.validateName(name)
        return try savepoint {
            let storage = DocumentStorage(db: connection)
            guard try storage.collection(name) != nil else { return false }
            for id in try storage.dropCollection(name) {
                record(DocumentChange(collection: name, id: id, kind: .remove))
            }
            return true
        }
    }

    /// Names of every collection, sorted, as this transaction sees them.
    public func collectionNames() throws -> [String] {
        try checkActive()
        return try DocumentStorage(db: connection).collectionNames()
    }

    /// Throws unless called on the transaction's thread while it runs.
    func checkActive() throws {
        // The owner is immutable; `isActive` is only touched on the owner's thread.
        guard pthread_equal(owner, pthread_self()) != 0, isActive else { throw DocumentError.transactionNotActive }
    }

    /// The error of an operation that failed after it had written: the transaction can only roll
    /// back (every later operation, and the commit, throw it).
    private(set) var failure: Error?

    /// Runs one document operation. Operations check everything that can go wrong (ids, JSON,
    /// duplicates, unknown collections) before they write, so such errors leave the transaction
    /// as it was; an error after a write (a database error) dooms the transaction instead, which
    /// then rolls back as a whole. Unlike a savepoint per operation, this costs nothing: in an
    /// encrypted database every page a savepoint journals is encrypted once more.
    func atomicWrite<T>(_ body: () throws -> T) throws -> T {
        try checkActive()
        if let failure { throw failure }
        let before = connection.totalChanges
        do {
            return try body()
        } catch {
            if connection.totalChanges != before { failure = error }
            throw error
        }
    }

    /// Runs `body` in a savepoint: on throw, its database changes and recorded changes are
    /// undone and the error rethrown.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try checkActive()
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "cipherdex_sp\(savepointDepth)"
        let mark = changes.count
        let commitMark = afterCommitActions.count
        let rollbackMark = rollbackActions.count
        try connection.execute("SAVEPOINT \(name)", [])
        do {
            let result = try body()
            try connection.execute("RELEASE \(name)", [])
            return result
        } catch {
            try? connection.execute("ROLLBACK TO \(name)", [])
            try? connection.execute("RELEASE \(name)", [])
            changes.removeSubrange(mark...)
            // The file work of what was rolled back goes with it: its unlinks and publishes never
            // run, its staged files are removed now.
            afterCommitActions.removeSubrange(commitMark...)
            let undone = rollbackActions[rollbackMark...]
            rollbackActions.removeSubrange(rollbackMark...)
            undone.forEach { $0() }
            throw error
        }
    }

    /// Queues a change for publication after COMMIT.
    func record(_ change: DocumentChange) {
        changes.append(change)
    }

    /// Schedules file work for after the commit.
    package func afterCommit(_ action: @escaping () -> Void) {
        afterCommitActions.append(action)
    }

    /// Schedules file clean-up for a rollback of the whole transaction (anything missed is
    /// removed at the next open).
    package func onRollback(_ action: @escaping () -> Void) {
        rollbackActions.append(action)
    }

    /// Marks the transaction finished: later uses throw.
    func finish() {
        isActive = false
    }

    private static func firstDuplicate(_ fields: [FieldPath]) -> String {
        var seen: Set<FieldPath> = []
        for field in fields where !seen.insert(field).inserted { return field.rawValue }
        return ""
    }
}
