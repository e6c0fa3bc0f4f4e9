import Foundation

extension JSONValue: Codable {
    /// Decodes any JSON value; a boolean is decoded as `.bool`, never as a number.
    ///
    /// From the decoder of `decode(_:)` (and so of a collection's `get(_:id:)` and
    /// `find(_:where:…)`), wherever the `JSONValue` sits in the decoded type, it is the stored
    /// value itself, exactly. From another decoder (Foundation's `JSONDecoder`, say) a number is
    /// read as exactly as that decoder allows, best effort: as an `Int64` or `UInt64` when it
    /// decodes as one, else as a `Decimal` when the decoder gives one that agrees with the
    /// number's double, else as that double; such a decoder may already have rounded it.
    /// (`JSONValue(parsing:)` is always exact.)
    public init(from decoder: Decoder) throws {
        if let document = decoder as? DocumentDecoder {
            self = document.value
            return
        }
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

    /// Encodes the value as the corresponding JSON value.
    ///
    /// Into the encoder of `JSONValue(encoding:)` (and so of a collection's `Codable` `insert`
    /// and `upsert`), it is inserted as it is, every number exactly. Into another encoder
    /// (Foundation's `JSONEncoder`, say) a number is encoded as an `Int64` or `UInt64` when it
    /// is one, else as a `Decimal` when that holds it exactly, else as a `Double` when that does;
    /// any other number (a 50-digit integer, `1e-400`) throws `EncodingError.invalidValue`
    /// rather than change.
    public func encode(to encoder: Encoder) throws {
        if let document = encoder as? DocumentEncoder {
            document.node.set(self)
            return
        }
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

    /// The JSON value of an `Encodable`, built directly (no JSON text in between).
    ///
    /// It is the value Foundation's `JSONEncoder` (default strategies) writes, for everything
    /// that writes exactly: integers exactly, `Double` and `Float` as their shortest round-trip
    /// decimal, `Decimal` exactly, `Date` as seconds since 2001, `Data` as a base64 string,
    /// `URL` as its absolute string. A `JSONValue` inside `value` is inserted as it is, every
    /// number exactly (a 50-digit integer, `1e-400`). Throws `DocumentError.encodingFailed` when
    /// `value` cannot be encoded (a non-finite number, say: the reason names its coding path),
    /// and `DocumentError.invalidJSON` when it nests arrays and objects deeper than
    /// `maximumDepth` (refused as it is encoded: a value nested any deeper never overflows the
    /// stack).
    public init(encoding value: some Encodable) throws {
        // A JSON value is itself: no walk at all.
        if let json = value as? JSONValue {
            self = json
            return
        }
        let tooDeep = DocumentError.invalidJSON(reason: "nesting deeper than \(Self.maximumDepth)")
        let encoded: JSONValue
        do {
            encoded = try DocumentEncoder.value(of: value, limit: Self.maximumDepth)
        } catch is DocumentEncodingNode.TooDeep {
            throw tooDeep
        } catch let error as EncodingError {
            throw DocumentError.encodingFailed(reason: DocumentError.describe(error))
        } catch {
            throw DocumentError.encodingFailed(reason: "the value could not be encoded")
        }
        // A `JSONValue` inside, or an empty container at the limit, can still go past it.
        guard !encoded.nests(deeperThan: Self.maximumDepth) else { throw tooDeep }
        self = encoded
    }

    /// Decodes the value as `type`, straight from the value (no JSON text in between).
    ///
    /// Exact: a `JSONValue` anywhere in `type` gets its part of the value as it is; an integer
    /// field gets a number only when it is an integer in the field's range (`1e2` is 100, `1.5`
    /// and `1e-400` are refused, never rounded); `Decimal` gets the number exactly or refuses it
    /// (beyond 38 digits or its exponent range); `Double` and `Float` get the nearest value and
    /// refuse a number beyond their range (`1e400`, and `1e-400`, which would become 0). `Date`,
    /// `Data` and `URL` are read as Foundation's `JSONDecoder` (default strategies) reads them:
    /// seconds since 2001, a base64 string, a URL string. Strings and booleans are never
    /// converted to or from numbers. Throws `DocumentError.decodingFailed` when the value does
    /// not fit, its reason naming the problem and the coding path (`number not representable
    /// as Int at items.2.v`).
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try DocumentDecoder(value: self).decode(type)
        } catch let error as DecodingError {
            throw DocumentError.decodingFailed(reason: DocumentError.describe(error))
        } catch {
            throw DocumentError.decodingFailed(reason: "the value could not be decoded")
        }
    }
}
