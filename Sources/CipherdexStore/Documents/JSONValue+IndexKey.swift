extension JSONValue {
    /// Type tags of index keys, in the order of `typeRank`.
    private static let indexTags: [UInt8] = [0x10, 0x20, 0x30, 0x40, 0x50, 0x60]

    /// Longest string payload kept in an index key; longer strings are truncated.
    static let indexStringLimit = 256

    /// An order-preserving binary key for the value, compared by SQLite as a BLOB (`memcmp`,
    /// then length):
    ///
    /// - a type tag byte in `typeRank` order, then
    /// - bool: one byte 0 or 1;
    /// - number: `JSONNumber.indexKeyPayload`, ordered by exact decimal value (this format
    ///   replaced 8-byte doubles in schema version 5, which rebuilt every index);
    /// - string: the UTF-8 bytes, truncated to `indexStringLimit` bytes;
    /// - array and object: nothing.
    ///
    /// The key is monotone, not injective: `a < b` implies `key(a) <= key(b)` and `a == b`
    /// implies `key(a) == key(b)`. Index scans therefore return candidates that are filtered
    /// again with the exact predicate.
    var indexKey: [UInt8] {
        var key = [JSONValue.indexTags[typeRank]]
        switch self {
        case .null, .array, .object:
            break
        case .bool(let value):
            key.append(value ? 1 : 0)
        case .number(let value):
            key.append(contentsOf: value.indexKeyPayload)
        case .string(let value):
            key.append(contentsOf: value.utf8.prefix(JSONValue.indexStringLimit))
        }
        return key
    }
}
