import Foundation

/// Failures of document operations. No case carries document content: reasons name the problem
/// and a position, never the text of the document or of a value.
public enum DocumentError: Error, LocalizedError, Equatable, Sendable {
    /// The input is not valid JSON (or holds a number whose exponent exceeds ±2.3 × 10^18, the
    /// one limit beyond JSON's own).
    case invalidJSON(reason: String)
    /// The document's top-level value is not an object.
    case notAnObject
    /// The collection was never created (or was dropped).
    case unknownCollection(String)
    /// The collection name does not match `[A-Za-z0-9_.-]{1,128}`.
    case invalidCollectionName(String)
    /// `createCollection` named a collection that already exists.
    case collectionExists(String)
    /// The document id is empty, longer than 512 UTF-8 bytes or contains a control character.
    case invalidID(reason: String)
    /// `insert` found a document with the same id in the collection.
    case duplicateID(collection: String, id: String)
    /// A field path is empty, too long, has an empty component or a control character.
    case invalidFieldPath(String)
    /// The field is already indexed in the collection.
    case indexAlreadyDeclared(collection: String, field: String)
    /// The field is not indexed in the collection.
    case indexNotDeclared(collection: String, field: String)
    /// A negative limit or offset.
    case invalidPagination(reason: String)
    /// A value could not be encoded as JSON (a non-finite number, say).
    case encodingFailed(reason: String)
    /// A document could not be decoded as the requested type.
    case decodingFailed(reason: String)
    /// A `StoreTransaction` (or a collection obtained from it) was used after its transaction
    /// ended, or from another thread than the transaction's.
    case transactionNotActive
    /// A member that must be an array (such as `attachments`, which `attach --doc` appends to)
    /// exists but holds another kind of value; it is left as it is.
    case fieldNotAnArray(field: String)

    /// The case's name, as the CLI prints it.
    public var name: String {
        switch self {
        case .invalidJSON: return "invalidJSON"
        case .notAnObject: return "notAnObject"
        case .unknownCollection: return "unknownCollection"
        case .invalidCollectionName: return "invalidCollectionName"
        case .collectionExists: return "collectionExists"
        case .invalidID: return "invalidID"
        case .duplicateID: return "duplicateID"
        case .invalidFieldPath: return "invalidFieldPath"
        case .indexAlreadyDeclared: return "indexAlreadyDeclared"
        case .indexNotDeclared: return "indexNotDeclared"
        case .invalidPagination: return "invalidPagination"
        case .encodingFailed: return "encodingFailed"
        case .decodingFailed: return "decodingFailed"
        case .transactionNotActive: return "transactionNotActive"
        case .fieldNotAnArray: return "fieldNotAnArray"
        }
    }

    /// A one-line description.
    public var errorDescription: String? {
        switch self {
        case .invalidJSON(let reason): return "invalid JSON: \(reason)"
        case .notAnObject: return "a document must be a JSON object"
        case .unknownCollection(let name): return "no collection named \(name)"
        case .invalidCollectionName(let name):
            return "invalid collection name \(name.debugDescription) (expected [A-Za-z0-9_.-]{1,128}, not . or ..)"
        case .collectionExists(let name): return "the collection \(name) already exists"
        case .invalidID(let reason): return "invalid document id: \(reason)"
        case .duplicateID(let collection, let id):
            return "the collection \(collection) already has a document with id \(id.debugDescription)"
        case .invalidFieldPath(let path): return FieldPath.problem(of: path)
        case .indexAlreadyDeclared(let collection, let field):
            return "the field \(field) is already indexed in \(collection)"
        case .indexNotDeclared(let collection, let field): return "the field \(field) is not indexed in \(collection)"
        case .invalidPagination(let reason): return "invalid pagination: \(reason)"
        case .encodingFailed(let reason): return "the value cannot be encoded as JSON: \(reason)"
        case .decodingFailed(let reason): return "the document cannot be decoded: \(reason)"
        case .transactionNotActive: return "the transaction has ended or belongs to another thread"
        case .fieldNotAnArray(let field): return "the field \(field) exists and is not an array"
        }
    }

    /// The kind of an encoding error and where it happened, without any value.
    static func describe(_ error: EncodingError) -> String {
        switch error {
        case .invalidValue(let value, let context) where isNonFiniteNumber(value):
            return "non-finite number (NaN or infinity) at \(path(context.codingPath))"
        case .invalidValue(_, let context): return "invalid value at \(path(context.codingPath))"
        @unknown default: return "encoding error"
        }
    }

    /// The kind of a decoding error and where it happened, without any value.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context): return "expected \(type) at \(path(context.codingPath))"
        case .valueNotFound(let type, let context): return "missing \(type) value at \(path(context.codingPath))"
        case .keyNotFound(let key, let context): return "missing key \(key.stringValue) at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            if let number = context.underlyingError as? DocumentDecoder.UnrepresentableNumber {
                return "number not representable as \(number.typeName) at \(path(context.codingPath))"
            }
            return "corrupted data at \(path(context.codingPath))"
        @unknown default: return "decoding error"
        }
    }

    /// Whether `value` is a `Double`, `Float` or `Decimal` that JSON cannot hold: NaN or an
    /// infinity.
    private static func isNonFiniteNumber(_ value: Any) -> Bool {
        switch value {
        case let number as Double: return !number.isFinite
        case let number as Float: return !number.isFinite
        case let number as Decimal: return number.isNaN
        default: return false
        }
    }

    private static func path(_ codingPath: [CodingKey]) -> String {
        codingPath.isEmpty
            ? "the top level" : codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
