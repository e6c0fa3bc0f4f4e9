/// A collection's row: its name and its indexed fields.
struct CollectionInfo: Sendable, Equatable {
    /// The collection's name.
    let name: String
    /// The indexed field paths, in declaration order.
    var indexedFields: [FieldPath]

    /// Names must match `[A-Za-z0-9_.-]{1,128}` (to reach a collection); see `validateNewName`.
    static func validateName(_ name: String) throws {
        let bytes = Array(name.utf8)
        let valid =
            (1...128).contains(bytes.count)
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                    return true
                default:
                    return false
                }
            }
        guard valid else { throw DocumentError.invalidCollectionName(name) }
    }

    /// A name a new collection may take: `validateName`'s, and not `.` or `..` (which name
    /// folders wherever a name becomes a path). One of those made by an earlier build is still
    /// read, written and dropped.
    static func validateNewName(_ name: String) throws {
        try validateName(name)
        guard name != ".", name != ".." else { throw DocumentError.invalidCollectionName(name) }
    }

    /// The `indexed_fields` column: a canonical JSON array of paths.
    var encodedFields: String {
        JSONValue.array(indexedFields.map { .string($0.rawValue) }).canonicalString
    }

    /// Parses the `indexed_fields` column.
    static func decodeFields(_ text: String, collection: String) throws -> [FieldPath] {
        guard let value = try? JSONValue(parsing: Array(text.utf8)), case .array(let elements) = value,
            let fields = try? elements.map({ element -> FieldPath in
                guard case .string(let path) = element else { throw DocumentError.invalidFieldPath("") }
                return try FieldPath(path)
            })
        else {
            throw StoreError.storeCorrupted(reason: "the index declaration of collection \(collection) does not parse")
        }
        return fields
    }
}
