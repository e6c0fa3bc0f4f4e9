/// An object's members, read by `DocumentDecoder` (see there); keys and their errors as
/// `JSONDecoder`'s.
struct DocumentKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    /// Whether a member is named `key` byte for byte (as field paths match names, `JSONValue`).
    func contains(_ key: Key) -> Bool { JSONValue.member(key.stringValue, of: members) != nil }

    /// The member's decoder; `keyNotFound` when there is none.
    private func member(_ key: Key) throws -> DocumentDecoder {
        guard let value = JSONValue.member(key.stringValue, of: members) else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: codingPath,
                    debugDescription: "No value associated with key \(key.stringValue.debugDescription)."))
        }
        return DocumentDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try member(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(key).decode(type) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try member(key).decode(type) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try member(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try member(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    /// The decoder of the `super` member (of null when there is none, as in `JSONDecoder`).
    func superDecoder() throws -> any Decoder {
        DocumentDecoder(
            value: JSONValue.member(DocumentCodingKey.superKey.stringValue, of: members) ?? .null,
            codingPath: codingPath + [DocumentCodingKey.superKey])
    }

    /// The decoder of the member (of null when there is none, as in `JSONDecoder`).
    func superDecoder(forKey key: Key) throws -> any Decoder {
        DocumentDecoder(value: JSONValue.member(key.stringValue, of: members) ?? .null, codingPath: codingPath + [key])
    }
}
