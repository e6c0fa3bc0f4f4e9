/// An object's members, written by `DocumentEncoder` (see there). One past the nesting limit
/// (`object` nil) throws `DocumentEncodingNode.TooDeep` for everything encoded into it.
struct DocumentKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    /// The object's node; nil past the limit.
    let object: DocumentEncodingNode?
    let session: DocumentEncodingNode.Session
    let codingPath: [any CodingKey]

    private func set(_ value: JSONValue, forKey key: Key) throws {
        guard let object else { throw DocumentEncodingNode.TooDeep() }
        object.set(.value(value), forKey: key.stringValue)
    }

    /// A new member's encoder. Past the limit: on a detached node, at this container's own
    /// coding path (a chain of containers made in a loop past it copies no growing path).
    private func memberEncoder(_ key: any CodingKey) -> DocumentEncoder {
        guard let object else {
            return DocumentEncoder(node: DocumentEncodingNode.detached(in: session), codingPath: codingPath)
        }
        return DocumentEncoder(node: object.memberNode(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { try set(.null, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try set(.bool(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try set(.string(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try set(DocumentEncoder.number(value, at: codingPath + [key]), forKey: key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        try set(DocumentEncoder.number(value, at: codingPath + [key]), forKey: key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { try set(DocumentEncoder.number(value), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try set(DocumentEncoder.number(value), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try set(DocumentEncoder.number(value), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try set(DocumentEncoder.number(value), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try set(DocumentEncoder.number(value), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try set(DocumentEncoder.number(value), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try set(DocumentEncoder.number(value), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try set(DocumentEncoder.number(value), forKey: key)
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try set(DocumentEncoder.number(value), forKey: key)
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try set(DocumentEncoder.number(value), forKey: key)
    }
    mutating func encode(_ value: Int128, forKey key: Key) throws {
        try set(DocumentEncoder.number(value), forKey: key)
    }
    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        try set(DocumentEncoder.number(value), forKey: key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard object != nil else { throw DocumentEncodingNode.TooDeep() }
        var encoder = memberEncoder(key)
        try encoder.encode(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        memberEncoder(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        memberEncoder(key).unkeyedContainer()
    }

    /// The encoder of the `super` member.
    mutating func superEncoder() -> any Encoder { memberEncoder(DocumentCodingKey.superKey) }

    /// The encoder of the member.
    mutating func superEncoder(forKey key: Key) -> any Encoder { memberEncoder(key) }
}
