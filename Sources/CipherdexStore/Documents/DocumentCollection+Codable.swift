import Foundation

extension DocumentCollection {
    /// Inserts `value` encoded as JSON (see `JSONValue(encoding:)`: the value `JSONEncoder`
    /// writes, built directly, with any `JSONValue` inside kept exactly); it must encode as an
    /// object. `Data` is taken as JSON text, as `insert(id:json:)` takes it (encoded, it would be
    /// a base64 string, which is never a document); read it back with `get(id:)`, or decoded
    /// into your own `Decodable` type.
    public func insert(_ value: some Encodable, id: String) throws {
        try insert(id: id, value: Self.documentValue(value))
    }

    /// Inserts or replaces a document with `value` encoded as JSON (`Data`: JSON text, as in
    /// `insert(_:id:)`); returns `.insert` or `.update`.
    @discardableResult
    public func upsert(_ value: some Encodable, id: String) throws -> DocumentChange.Kind {
        try upsert(id: id, value: Self.documentValue(value))
    }

    /// The document `value` stands for: `Data` parsed as JSON text, anything else encoded.
    private static func documentValue(_ value: some Encodable) throws -> JSONValue {
        if let text = value as? Data { return try JSONValue(parsing: text) }
        return try JSONValue(encoding: value)
    }

    /// The document with this id decoded as `type`, or nil when there is none; throws
    /// `decodingFailed` when it does not fit the type. Exact (see `JSONValue.decode(_:)`): a
    /// `JSONValue` field gets the stored value as it is, an integer field refuses a number that
    /// is not an integer it holds rather than round it, so a document read and written back
    /// with `upsert(_:id:)` keeps every number.
    public func get<T: Decodable>(_ type: T.Type, id: String) throws -> T? {
        try get(id: id)?.decode(type)
    }
}

extension DocumentCollection {
    /// The documents `find(where:orderBy:limit:)` returns, each decoded as `type` (exactly, as
    /// `get(_:id:)` decodes), in the same order; throws `decodingFailed` when one does not fit
    /// the type.
    public func find<T: Decodable>(
        _ type: T.Type, where predicates: [FieldPredicate] = [], orderBy: [SortKey] = [], limit: Int? = nil
    ) throws -> [T] {
        try find(where: predicates, orderBy: orderBy, limit: limit).map { try $0.decode(type) }
    }
}
