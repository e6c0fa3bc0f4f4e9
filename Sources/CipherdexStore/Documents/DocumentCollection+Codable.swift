extension DocumentCollection {
    /// Inserts `value` encoded as JSON (through `JSONEncoder`); it must encode as an object.
    public func insert(_ value: some Encodable, id: String) throws {
        try insert(id: id, value: JSONValue(encoding: value))
    }

    /// Inserts or replaces a document with `value` encoded as JSON; returns `.insert` or
    /// `.update`.
    @discardableResult
    public func upsert(_ value: some Encodable, id: String) throws -> DocumentChange.Kind {
        try upsert(id: id, value: JSONValue(encoding: value))
    }

    /// The document with this id decoded as `type` (through `JSONDecoder`), or nil when there is
    /// none; throws `decodingFailed` when it does not fit the type.
    public func get<T: Decodable>(_ type: T.Type, id: String) throws -> T? {
        try get(id: id)?.decode(type)
    }
}

extension DocumentCollection {
    /// The documents `find(where:orderBy:limit:)` returns, each decoded as `type` (through
    /// `JSONDecoder`), in the same order; throws `decodingFailed` when one does not fit the type.
    public func find<T: Decodable>(
        _ type: T.Type, where predicates: [FieldPredicate] = [], orderBy: [SortKey] = [], limit: Int? = nil
    ) throws -> [T] {
        try find(where: predicates, orderBy: orderBy, limit: limit).map { try $0.decode(type) }
    }
}
