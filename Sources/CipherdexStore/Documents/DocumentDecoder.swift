import Foundation

/// Decodes a `Decodable` straight from a `JSONValue`, so what it reads is the stored value
/// itself, never a re-parse of its text: `JSONValue.decode(_:)`, and through it `get(_:id:)`
/// and `find(_:where:…)`, use it.
///
/// It gives what Foundation's `JSONDecoder` (default strategies) gives wherever that is exact,
/// with the same errors and coding paths, and differs where that was not exact:
/// - an integer type gets the number only when it is an integer in its range (`1e2` is 100,
///   `1.0` is 1); `1.5`, `1.0000000000000000000001` or `1e-400` are
///   `DecodingError.dataCorrupted` (an `UnrepresentableNumber`), never rounded or cut;
/// - `Double` and `Float` get the nearest value, rounded once from the exact number; one beyond
///   their range (`1e400`, or `1e-400`, which would become 0) is refused the same way, as
///   `JSONDecoder` refuses it;
/// - `Decimal` gets the number exactly when it holds it (38 digits, exponent -128...127) and
///   refuses it otherwise (`JSONDecoder` cut a 50-digit integer to 38 digits);
/// - a `JSONValue` anywhere in the type gets the stored subtree exactly.
///
/// `Date` (a number: seconds since 2001), `Data` (a base64 string) and `URL` (a string) are read
/// as `JSONDecoder`'s default strategies read them. Strings and booleans are never converted
/// to or from numbers.
struct DocumentDecoder: Decoder, SingleValueDecodingContainer {
    /// A number that the requested type cannot hold exactly (an integer type) or at all (a
    /// floating-point type or `Decimal`): the `underlyingError` of the `dataCorrupted` error.
    struct UnrepresentableNumber: Error {
        /// The requested type's name (`Int`, `Double`).
        let typeName: String
    }

    /// The value being decoded.
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A decoder for `value`, at `codingPath`.
    init(value: JSONValue, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(DocumentKeyedDecodingContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([Any].self) }
        return DocumentUnkeyedDecodingContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(type) }
        return bool
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let string) = value else { throw mismatch(type) }
        return string
    }

    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode(_ type: Int128.Type) throws -> Int128 { try integer(type) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try integer(type) }

    /// The value as `type`: the types `JSONDecoder` reads specially as it reads them, a
    /// `JSONValue` as the value itself, anything else through its own `init(from:)`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if type == JSONValue.self, let value = value as? T { return value }
        if type == Decimal.self, let decimal = try decimal() as? T { return decimal }
        if type == Data.self, let data = try data() as? T { return data }
        if type == URL.self, let url = try url() as? T { return url }
        return try T(from: self)
    }

    private func decimal() throws -> Decimal {
        guard case .number(let number) = value else { throw mismatch(Decimal.self) }
        guard let decimal = number.decimalValue else { throw unrepresentable(Decimal.self) }
        return decimal
    }

    private func data() throws -> Data {
        guard let data = Data(base64Encoded: try decode(String.self)) else {
            throw corrupted("Encountered Data is not valid Base64.")
        }
        return data
    }

    private func url() throws -> URL {
        guard let url = URL(string: try decode(String.self)) else { throw corrupted("Invalid URL string.") }
        return url
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let number) = value else { throw mismatch(type) }
        guard let integer = number.exactly(type) else { throw unrepresentable(type) }
        return integer
    }

    private func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
        guard case .number(let number) = value else { throw mismatch(type) }
        guard let nearest = number.nearest(type) else { throw unrepresentable(type) }
        return nearest
    }

    /// `valueNotFound` for null, else `typeMismatch`, as `JSONDecoder` says it.
    private func mismatch(_ type: Any.Type) -> DecodingError {
        let found: String
        switch value {
        case .null:
            return .valueNotFound(
                type, .init(codingPath: codingPath, debugDescription: "Expected \(type) value but found null instead."))
        case .bool: found = "bool"
        case .number: found = "number"
        case .string: found = "a string"
        case .array: found = "an array"
        case .object: found = "a dictionary"
        }
        return .typeMismatch(
            type,
            .init(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(found) instead."))
    }

    private func unrepresentable(_ type: Any.Type) -> DecodingError {
        .dataCorrupted(
            .init(
                codingPath: codingPath, debugDescription: "The number is not representable as \(type).",
                underlyingError: UnrepresentableNumber(typeName: "\(type)")))
    }

    private func corrupted(_ description: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: codingPath, debugDescription: description))
    }
}
