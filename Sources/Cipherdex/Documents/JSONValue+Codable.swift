import Foundation

extension JSONValue: Codable {
    /// Decodes any JSON value; a boolean is decoded as `.bool`, never as a number.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
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
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The JSON value of an `Encodable` (through `JSONEncoder`). Throws
    /// `DocumentError.encodingFailed` when it cannot be encoded (a non-finite number, say).
    public init(encoding value: some Encodable) throws {
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
