import Foundation

/// Encodes an `Encodable` straight into a `JSONValue`, with no JSON text in between:
/// `JSONValue(encoding:)`, and through it the `Codable` `insert` and `upsert`, use it.
///
/// The value is the one Foundation's `JSONEncoder` (default strategies) writes, parsed, for
/// every value that writes exactly: integers of every width, `Double` and `Float` as their
/// shortest round-trip decimal, `Decimal` as its exact number, `Date` as seconds since 2001,
/// `Data` as a base64 string, `URL` as its absolute string, an element or member that encodes
/// nothing as `{}`. A `JSONValue` inside the value is inserted as it is (a 50-digit integer,
/// `1e-400`), where `JSONEncoder` failed or rounded. A non-finite `Double` or `Float` (or a NaN
/// `Decimal`) is `EncodingError.invalidValue` at its coding path.
///
/// Arrays and objects nested deeper than the session's limit are refused as they are made
/// (see `DocumentEncodingNode`): the encoder recurses into a value at most that deep.
struct DocumentEncoder: Encoder, SingleValueEncodingContainer {
    /// The node this encoder writes into.
    let node: DocumentEncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The value of `value`. Throws `DocumentEncodingNode.TooDeep` when it nests arrays and
    /// objects deeper than `limit` (whatever its own `encode(to:)` made of that), or the
    /// `EncodingError` or other error its encoding threw.
    static func value(of value: some Encodable, limit: Int) throws -> JSONValue {
        let session = DocumentEncodingNode.Session(limit: limit)
        let root = DocumentEncodingNode(level: 0, session: session)
        var encoder = DocumentEncoder(node: root, codingPath: [])
        do {
            try encoder.encode(value)
        } catch {
            throw session.refusedNesting ? DocumentEncodingNode.TooDeep() : error
        }
        guard !session.refusedNesting else { throw DocumentEncodingNode.TooDeep() }
        guard let result = root.build() else {
            throw EncodingError.invalidValue(
                value,
                .init(codingPath: [], debugDescription: "Top-level \(type(of: value)) did not encode any values."))
        }
        return result
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(
            DocumentKeyedEncodingContainer<Key>(
                object: node.makeObject() ? node : nil, session: node.session, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        DocumentUnkeyedEncodingContainer(
            array: node.makeArray() ? node : nil, session: node.session, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(try Self.number(value, at: codingPath)) }
    mutating func encode(_ value: Float) throws { node.set(try Self.number(value, at: codingPath)) }
    mutating func encode(_ value: Int) throws { node.set(Self.number(value)) }
    mutating func encode(_ value: Int8) throws { node.set(Self.number(value)) }
    mutating func encode(_ value: Int16) throws { node.set(Self.number(value)) }
    mutating func encode(_ value: Int32) throws { node.set(Self.number(value)) }
    mutating func encode(_ value: Int64) throws { node.set(Self.number(value)) }
    mutating func encode(_ value: UInt) throws { node.set(Self.number(value)) }
    mutating func encode(_ value: UInt8) throws { node.set(Self.number(value)) }
    mutating func encode(_ value: UInt16) throws { node.set(Self.number(value)) }
    mutating func encode(_ value: UInt32) throws { node.set(Self.number(value)) }
    mutating func encode(_ value: UInt64) throws { node.set(Self.number(value)) }
    mutating func encode(_ value: Int128) throws { node.set(Self.number(value)) }
    mutating func encode(_ value: UInt128) throws { node.set(Self.number(value)) }

    /// The value: a `JSONValue` as itself, the types `JSONEncoder` writes specially as it
    /// writes them, anything else through its own `encode(to:)`.
    mutating func encode<T: Encodable>(_ value: T) throws {
        switch value {
        case let json as JSONValue: node.set(json)
        case let data as Data: node.set(.string(data.base64EncodedString()))
        case let url as URL: node.set(.string(url.absoluteString))
        case let decimal as Decimal:
            guard let number = JSONNumber(decimal) else {
                throw EncodingError.invalidValue(
                    decimal, .init(codingPath: codingPath, debugDescription: "Unable to encode Decimal.nan in JSON."))
            }
            node.set(.number(number))
        default:
            try value.encode(to: self)
        }
    }

    /// The integer, exactly.
    static func number(_ value: some FixedWidthInteger) -> JSONValue {
        .number(JSONNumber(integer: value))
    }

    /// The double's shortest round-trip decimal; `invalidValue` when it is not finite.
    static func number(_ value: Double, at codingPath: [any CodingKey]) throws -> JSONValue {
        guard let number = JSONNumber(value) else { throw nonFinite(value, at: codingPath) }
        return .number(number)
    }

    /// The float's shortest round-trip decimal; `invalidValue` when it is not finite.
    static func number(_ value: Float, at codingPath: [any CodingKey]) throws -> JSONValue {
        guard let number = JSONNumber(float: value) else { throw nonFinite(value, at: codingPath) }
        return .number(number)
    }

    private static func nonFinite(_ value: some BinaryFloatingPoint, at codingPath: [any CodingKey]) -> EncodingError {
        .invalidValue(
            value,
            .init(
                codingPath: codingPath,
                debugDescription: "Unable to encode \(type(of: value)).\(value) directly in JSON."))
    }
}
