import Foundation

/// Walks an `Encodable` the way `JSONEncoder` would, recording nothing but how deep its arrays and
/// objects nest, and stops at the first one past `limit`: `JSONEncoder` recurses once per level
/// and overflowed the stack on a value nested some thousands deep (a linked list of 10,000
/// `Codable` nodes), where the document's limit (`JSONValue.maximumDepth`) refuses it anyway.
///
/// The probe's own recursion is the value's `encode(to:)` calls, cut at `limit` levels. Types
/// `JSONEncoder` writes as one scalar (`Data`, `Date`, `URL`, `Decimal`) count as scalars.
enum EncodingDepthProbe {
    /// The value nests deeper than the limit.
    struct TooDeep: Error {}

    /// Throws `TooDeep` when `value` encodes to arrays and objects nested deeper than `limit`.
    static func check(_ value: some Encodable, limit: Int) throws {
        guard !isScalar(value) else { return }
        try value.encode(to: ProbeEncoder(depth: 0, limit: limit))
    }

    /// Whether `JSONEncoder` writes `value` as one scalar whatever its own `encode(to:)` does.
    static func isScalar(_ value: Any) -> Bool {
        value is Data || value is Date || value is URL || value is Decimal
    }

    /// `value`, one of a container's at `depth` (the container's own level).
    static func probe(_ value: some Encodable, inContainerAt depth: Int, limit: Int) throws {
        guard depth <= limit else { throw TooDeep() }
        guard !isScalar(value) else { return }
        try value.encode(to: ProbeEncoder(depth: depth, limit: limit))
    }
}

/// An encoder at `depth`: the containers it makes are one level deeper.
private struct ProbeEncoder: Encoder {
    let depth: Int
    let limit: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ProbeKeyedContainer<Key>(depth: depth + 1, limit: limit))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        ProbeUnkeyedContainer(depth: depth + 1, limit: limit)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ProbeSingleValueContainer(depth: depth, limit: limit)
    }
}

/// An object at `depth`: each member is checked, scalars only against the depth.
private struct ProbeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let depth: Int
    let limit: Int
    var codingPath: [any CodingKey] { [] }

    private func scalar() throws { guard depth <= limit else { throw EncodingDepthProbe.TooDeep() } }

    mutating func encodeNil(forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: String, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: Double, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: Float, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: Int, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try scalar() }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try scalar() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try EncodingDepthProbe.probe(value, inContainerAt: depth, limit: limit)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(ProbeKeyedContainer<NestedKey>(depth: depth + 1, limit: limit))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ProbeUnkeyedContainer(depth: depth + 1, limit: limit)
    }

    mutating func superEncoder() -> any Encoder { ProbeEncoder(depth: depth, limit: limit) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { ProbeEncoder(depth: depth, limit: limit) }
}

/// An array at `depth`.
private struct ProbeUnkeyedContainer: UnkeyedEncodingContainer {
    let depth: Int
    let limit: Int
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(depth: Int, limit: Int) {
        self.depth = depth
        self.limit = limit
    }

    private mutating func scalar() throws {
        guard depth <= limit else { throw EncodingDepthProbe.TooDeep() }
        count += 1
    }

    mutating func encodeNil() throws { try scalar() }
    mutating func encode(_ value: Bool) throws { try scalar() }
    mutating func encode(_ value: String) throws { try scalar() }
    mutating func encode(_ value: Double) throws { try scalar() }
    mutating func encode(_ value: Float) throws { try scalar() }
    mutating func encode(_ value: Int) throws { try scalar() }
    mutating func encode(_ value: Int8) throws { try scalar() }
    mutating func encode(_ value: Int16) throws { try scalar() }
    mutating func encode(_ value: Int32) throws { try scalar() }
    mutating func encode(_ value: Int64) throws { try scalar() }
    mutating func encode(_ value: UInt) throws { try scalar() }
    mutating func encode(_ value: UInt8) throws { try scalar() }
    mutating func encode(_ value: UInt16) throws { try scalar() }
    mutating func encode(_ value: UInt32) throws { try scalar() }
    mutating func encode(_ value: UInt64) throws { try scalar() }
    mutating func encode<T: Encodable>(_ value: T) throws {
        count += 1
        try EncodingDepthProbe.probe(value, inContainerAt: depth, limit: limit)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        count += 1
        return KeyedEncodingContainer(ProbeKeyedContainer<NestedKey>(depth: depth + 1, limit: limit))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return ProbeUnkeyedContainer(depth: depth + 1, limit: limit)
    }

    mutating func superEncoder() -> any Encoder {
        count += 1
        return ProbeEncoder(depth: depth, limit: limit)
    }
}

/// One value, at the depth of its encoder (a single value adds no level).
private struct ProbeSingleValueContainer: SingleValueEncodingContainer {
    let depth: Int
    let limit: Int
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws {}
    mutating func encode(_ value: Bool) throws {}
    mutating func encode(_ value: String) throws {}
    mutating func encode(_ value: Double) throws {}
    mutating func encode(_ value: Float) throws {}
    mutating func encode(_ value: Int) throws {}
    mutating func encode(_ value: Int8) throws {}
    mutating func encode(_ value: Int16) throws {}
    mutating func encode(_ value: Int32) throws {}
    mutating func encode(_ value: Int64) throws {}
    mutating func encode(_ value: UInt) throws {}
    mutating func encode(_ value: UInt8) throws {}
    mutating func encode(_ value: UInt16) throws {}
    mutating func encode(_ value: UInt32) throws {}
    mutating func encode(_ value: UInt64) throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {
        guard !EncodingDepthProbe.isScalar(value) else { return }
        try value.encode(to: ProbeEncoder(depth: depth, limit: limit))
    }
}
