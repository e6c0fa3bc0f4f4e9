import Foundation

extension JSONValue: Codable {
    /// Decodes any JSON value; a boolean is decoded as `.bool`, never as a number. A number is
    /// read as exactly as the decoder allows: as an `Int64` or `UInt64` when it is one, else as
    /// a `Decimal` when the decoder gives one that agrees with the number's double, else as that
    /// double. (`JSONValue(parsing:)` is always exact.)
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? container.decode(UInt64.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? container.decode(Double.self), let number = JSONNumber(value) {
            let decimal = (try? container.decode(Decimal.self)).flatMap(JSONNumber.init)
            // A decoder may build a Decimal through a double, or underflow it to zero: keep it
            // only when it rounds to the same double, then it carries at least as many digits.
            self = .number(decimal.map { $0.doubleValue == value } == true ? decimal! : number)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes the value as the corresponding JSON value. A number is encoded as an `Int64` or
    /// `UInt64` when it is one, else as a `Decimal` when that holds it exactly, else as a `Double`
    /// when that does; any other number throws `EncodingError.invalidValue` rather than change.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if let integer = value.int64Value {
                try container.encode(integer)
            } else if let integer = value.uint64Value {
                try container.encode(integer)
            } else if let decimal = value.decimalValue {
                try container.encode(decimal)
            } else if JSONNumber(value.doubleValue) == value {
                try container.encode(value.doubleValue)
            } else {
                throw EncodingError.invalidValue(
                    self,
                    .init(
                        codingPath: encoder.codingPath,
                        debugDescription: "the number has no exact Int64, UInt64, Decimal or Double form"))
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The JSON value of an `Encodable` (through `JSONEncoder`). Throws
    /// `DocumentError.encodingFailed` when it cannot be encoded (a non-finite number, say).
    public init(encoding value: some Encodable) throws {
        // A JSON value is itself: no round trip through text (which also recursed once per level
        // of a value nested past the limit, and overflowed the stack).
        if let json = value as? JSONValue {
            self = json
            return
        }
        do {
            try EncodingDepthProbe.check(value, limit: Self.maximumDepth)
        } catch is EncodingDepthProbe.TooDeep {
            throw DocumentError.invalidJSON(reason: "nesting deeper than \(Self.maximumDepth)")
        } catch {
            // The value's own failure: `JSONEncoder` below meets it again and reports it.
        }
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch let error as EncodingError {
            throw DocumentError.encodingFailed(reason: DocumentError.describe(error))
        } catch {
            throw DocumentError.encodingFailed(reason: "the value could not be encoded")
        }
        try self.init(parsing: data)
    }

    /// Decodes the value as `type` (through `JSONDecoder`). Throws
    /// `DocumentError.decodingFailed` when it does not fit.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(canonicalBytes))
        } catch let error as DecodingError {
            throw DocumentError.decodingFailed(reason: DocumentError.describe(error))
        } catch {
            throw DocumentError.decodingFailed(reason: "the value could not be decoded")
        }
    }
}
