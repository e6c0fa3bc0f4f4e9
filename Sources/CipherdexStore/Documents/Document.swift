/// A document: an id unique within its collection and a JSON object.
public struct Document: Sendable, Hashable {
    /// The document's id.
    public let id: String
    /// The document's content, always an `.object`.
    public let value: JSONValue

    /// A document; throws `DocumentError.notAnObject` unless `value` is an object.
    public init(id: String, value: JSONValue) throws {
        guard case .object = value else { throw DocumentError.notAnObject }
        self.id = id
        self.value = value
    }

    init(uncheckedID id: String, value: JSONValue) {
        self.id = id
        self.value = value
    }

    /// The value at a dotted path such as `address.city` (see `JSONValue.subscript(path:)`).
    public subscript(path path: String) -> JSONValue? {
        value[path: path]
    }

    /// Decodes the document's content as `type`; throws `DocumentError.decodingFailed`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try value.decode(type)
    }
}
