import Foundation

/// A collection as a `StoreSnapshot` sees it: the read operations of `DocumentCollection`, all
/// answered from the snapshot's one read transaction.
public struct SnapshotCollection {
    let base: DocumentCollection

    /// The collection's name.
    public var name: String { base.name }

    /// The document with this id, or nil.
    public func get(id: String) throws -> Document? {
        try base.get(id: id)
    }

    /// The document with this id decoded as `type`, or nil.
    public func get<T: Decodable>(_ type: T.Type, id: String) throws -> T? {
        try base.get(type, id: id)
    }

    /// The stored JSON text of the document with this id, or nil (see
    /// `DocumentCollection.json(id:)`).
    public func json(id: String) throws -> Data? {
        try base.json(id: id)
    }

    /// The documents matching every predicate (see `DocumentCollection.find(where:orderBy:limit:)`).
    public func find(where predicates: [FieldPredicate] = [], orderBy: [SortKey] = [], limit: Int? = nil) throws
        -> [Document]
    {
        try base.find(where: predicates, orderBy: orderBy, limit: limit)
    }

    /// The matching documents decoded as `type` (see `DocumentCollection.find(_:where:orderBy:limit:)`).
    public func find<T: Decodable>(
        _ type: T.Type, where predicates: [FieldPredicate] = [], orderBy: [SortKey] = [], limit: Int? = nil
    ) throws -> [T] {
        try base.find(type, where: predicates, orderBy: orderBy, limit: limit)
    }

    /// The matching documents as their stored JSON text (see
    /// `DocumentCollection.findJSON(where:orderBy:limit:)`).
    public func findJSON(where predicates: [FieldPredicate] = [], orderBy: [SortKey] = [], limit: Int? = nil) throws
        -> [DocumentJSON]
    {
        try base.findJSON(where: predicates, orderBy: orderBy, limit: limit)
    }

    /// Documents in id order (see `DocumentCollection.list(limit:offset:)`).
    public func list(limit: Int? = nil, offset: Int = 0) throws -> [Document] {
        try base.list(limit: limit, offset: offset)
    }

    /// Number of documents.
    public func count() throws -> Int {
        try base.count()
    }
}
