import Foundation

/// A named set of JSON documents in a store, each with an id unique in the collection.
///
/// Get one with `Store.collection(_:)` (operations run on their own, each in its own
/// transaction) or `StoreTransaction.collection(_:)` (operations join that transaction). The
/// first insert or upsert creates a collection that does not exist yet; every other operation
/// throws `DocumentError.unknownCollection` for it.
///
/// Documents are stored as canonical JSON (see `JSONValue.canonicalBytes`) inside the store's
/// encrypted database, and the indexes of the collection's indexed fields are updated in the
/// same transaction as each write.
///
/// `Sendable` unchecked only because a bound collection holds its `StoreTransaction` or
/// `StoreSnapshot`, which are not `Sendable`: both refuse every use but from their own thread
/// while their closure runs (`checkActive()`), so a bound collection sent elsewhere can only
/// throw `transactionNotActive`; a store-level collection holds just its name and the store.
public struct DocumentCollection: @unchecked Sendable {
    /// Longest accepted document id, in UTF-8 bytes.
    public static let maximumIDLength = 512

    /// The collection's name.
    public let name: String
    let store: Store
    /// The transaction this collection is bound to, or nil for a store-level collection
    /// (unchecked Sendable: a bound collection refuses use from any other thread).
    let transaction: StoreTransaction?
    /// The read snapshot this collection is bound to (`StoreSnapshot.collection(_:)`, which
    /// exposes only reads), or nil; confined to the snapshot's thread like a transaction.
    let snapshot: StoreSnapshot?

    init(name: String, store: Store, transaction: StoreTransaction?, snapshot: StoreSnapshot? = nil) {
        self.name = name
        self.store = store
        self.transaction = transaction
        self.snapshot = snapshot
    }

    // MARK: Writing

    /// Inserts a document from JSON text; throws `duplicateID` when `id` exists, `invalidJSON`
    /// or `notAnObject` for bad content.
    public func insert(id: String, json: Data) throws {
        try insert(id: id, value: JSONValue(parsing: json))
    }

    /// Inserts a document; throws `duplicateID` when `id` exists.
    public func insert(id: String, value: JSONValue) throws {
        try Self.validate(id: id, value: value)
        try performWrite { transaction, storage in
            let info = try storage.ensureCollection(name)
            guard try storage.rowID(collection: name, id: id) == nil else {
                throw DocumentError.duplicateID(collection: name, id: id)
            }
            try storage.insert(info, id: id, value: value)
            transaction.record(DocumentChange(collection: name, id: id, kind: .insert))
        }
    }

    /// Inserts or replaces a document from JSON text; returns `.insert` or `.update`.
    @discardableResult
    public func upsert(id: String, json: Data) throws -> DocumentChange.Kind {
        try upsert(id: id, value: JSONValue(parsing: json))
    }

    /// Inserts or replaces a document; returns `.insert` or `.update`.
    @discardableResult
    public func upsert(id: String, value: JSONValue) throws -> DocumentChange.Kind {
        try Self.validate(id: id, value: value)
        return try performWrite { transaction, storage in
            let info = try storage.ensureCollection(name)
            let kind: DocumentChange.Kind
            if let rowID = try storage.rowID(collection: name, id: id) {
                try storage.update(info, rowID: rowID, value: value)
                kind = .update
            } else {
                try storage.insert(info, id: id, value: value)
                kind = .insert
            }
            transaction.record(DocumentChange(collection: name, id: id, kind: kind))
            return kind
        }
    }

    /// Removes a document; returns false when there was none with this id.
    @discardableResult
    public func remove(id: String) throws -> Bool {
        try Self.validate(id: id)
        return try performWrite { transaction, storage in
            _ = try storage.existingCollection(name)
            guard let rowID = try storage.rowID(collection: name, id: id) else { return false }
            try storage.delete(rowID: rowID)
            transaction.record(DocumentChange(collection: name, id: id, kind: .remove))
            return true
        }
    }

    // MARK: Reading

    /// The document with this id, or nil.
    public func get(id: String) throws -> Document? {
        try Self.validate(id: id)
        return try performRead { storage in
            _ = try storage.existingCollection(name)
            return try storage.document(collection: name, id: id)
        }
    }

    /// The stored JSON text of the document with this id, or nil: the canonical JSON of its
    /// value (`JSONValue.canonicalBytes`, the text FORMAT.md describes), so its numbers and
    /// strings exactly as stored, the same bytes as `get(id:)`'s `value.canonicalBytes`.
    ///
    /// The text is checked by the validator the parser runs first (it refuses exactly what the
    /// parser refuses) but never parsed into a `JSONValue`: reading a document costs about its
    /// size in time and memory, where `get(id:)` builds a tree many times larger. A stored body
    /// that is not valid JSON or not an object throws `StoreError.storeCorrupted`, as for `get`.
    public func json(id: String) throws -> Data? {
        try Self.validate(id: id)
        return try performRead { storage in
            _ = try storage.existingCollection(name)
            return try storage.text(collection: name, id: id)
        }
    }

    /// Documents in id order (UTF-8 byte order), skipping `offset` and returning at most
    /// `limit` (all when nil).
    public func list(limit: Int? = nil, offset: Int = 0) throws -> [Document] {
        try Self.validate(limit: limit)
        guard offset >= 0 else { throw DocumentError.invalidPagination(reason: "negative offset") }
        return try performRead { storage in
            _ = try storage.existingCollection(name)
            return try storage.list(collection: name, limit: limit, offset: offset)
        }
    }

    /// Number of documents.
    public func count() throws -> Int {
        try performRead { storage in
            _ = try storage.existingCollection(name)
            return try storage.count(collection: name)
        }
    }

    /// The collection's indexed fields, in declaration order.
    public func indexedFields() throws -> [String] {
        try performRead { storage in try storage.existingCollection(name).indexedFields.map(\.rawValue) }
    }

    // MARK: Indexes

    /// Indexes `field` (a dotted path) for every existing and future document; throws
    /// `indexAlreadyDeclared` when it is indexed. Creates the collection when needed.
    public func createIndex(on field: String) throws {
        let path = try FieldPath(field)
        try performWrite { _, storage in
            var info = try storage.ensureCollection(name)
            guard !info.indexedFields.contains(path) else {
                throw DocumentError.indexAlreadyDeclared(collection: name, field: field)
            }
            info.indexedFields.append(path)
            try storage.saveIndexedFields(info)
            try storage.buildIndex(info, field: path)
        }
    }

    /// Removes the index of `field`; throws `indexNotDeclared` when it is not indexed.
    public func dropIndex(on field: String) throws {
        let path = try FieldPath(field)
        try performWrite { _, storage in
            var info = try storage.existingCollection(name)
            guard let position = info.indexedFields.firstIndex(of: path) else {
                throw DocumentError.indexNotDeclared(collection: name, field: field)
            }
            info.indexedFields.remove(at: position)
            try storage.saveIndexedFields(info)
            try storage.dropIndex(collection: name, field: path)
        }
    }

    // MARK: Plumbing

    /// Runs a write as one operation of the bound transaction (`StoreTransaction.atomicWrite`),
    /// or in a transaction of its own (which joins one running on this thread).
    func performWrite<T>(_ body: (StoreTransaction, DocumentStorage) throws -> T) throws -> T {
        if let transaction = transaction ?? store.changeObservers.transactionOnCurrentThread() {
            return try Store.mappingDatabaseErrors {
                try transaction.atomicWrite { try body(transaction, DocumentStorage(db: transaction.connection)) }
            }
        }
        return try store.transaction { transaction in try body(transaction, DocumentStorage(db: transaction.connection))
        }
    }

    /// Runs a read on the bound snapshot or transaction, or through `Store.readDocuments`.
    func performRead<T>(_ body: (DocumentStorage) throws -> T) throws -> T {
        if let snapshot {
            try snapshot.checkActive()
            return try Store.mappingDatabaseErrors { try body(DocumentStorage(db: snapshot.connection)) }
        }
        if let transaction {
            try transaction.checkActive()
            return try Store.mappingDatabaseErrors { try body(DocumentStorage(db: transaction.connection)) }
        }
        return try store.readDocuments(body)
    }

    static func validate(id: String) throws {
        guard !id.isEmpty else { throw DocumentError.invalidID(reason: "the id is empty") }
        guard id.utf8.count <= maximumIDLength else {
            throw DocumentError.invalidID(reason: "the id is longer than \(maximumIDLength) bytes")
        }
        guard !id.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw DocumentError.invalidID(reason: "the id contains a control character")
        }
    }

    static func validate(id: String, value: JSONValue) throws {
        try validate(id: id)
        guard case .object = value else { throw DocumentError.notAnObject }
        guard !value.nests(deeperThan: JSONValue.maximumDepth) else {
            throw DocumentError.invalidJSON(reason: "nesting deeper than \(JSONValue.maximumDepth)")
        }
    }

    static func validate(limit: Int?) throws {
        if let limit, limit < 0 { throw DocumentError.invalidPagination(reason: "negative limit") }
    }
}
