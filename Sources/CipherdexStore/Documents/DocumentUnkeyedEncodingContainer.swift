/// An array's elements, written in order by `DocumentEncoder` (see there). One past the
/// nesting limit (`array` nil) throws `DocumentEncodingNode.TooDeep` for everything encoded
/// into it.
struct DocumentUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    /// The array's node; nil past the limit.
    let array: DocumentEncodingNode?
    let session: DocumentEncodingNode.Session
    let codingPath: [any CodingKey]

    var count: Int { array?.count ?? 0 }

    /// The coding path of the next element.
    private var elementPath: [any CodingKey] { codingPath + [DocumentCodingKey(index: count)] }

    private func append(_ value: JSONValue) throws {
        guard let array else { throw DocumentEncodingNode.TooDeep() }
        array.append(.value(value))
    }

    /// A new element's encoder. Past the limit: on a detached node, at this container's own
    /// coding path (as in `DocumentKeyedEncodingContainer`).
    private func elementEncoder() -> DocumentEncoder {
        guard let array else {
            return DocumentEncoder(node: DocumentEncodingNode.detached(in: session), codingPath: codingPath)
        }
        let path = elementPath
        return DocumentEncoder(node: array.appendNode(), codingPath: path)
    }

    mutating func encodeNil() throws { try append(.null) }
    mutating func encode(_ value: Bool) throws { try append(.bool(value)) }
    mutating func encode(_ value: String) throws { try append(.string(value)) }
    mutating func encode(_ value: Double) throws { try append(DocumentEncoder.number(value, at: elementPath)) }
    mutating func encode(_ value: Float) throws { try append(DocumentEncoder.number(value, at: elementPath)) }
    mutating func encode(_ value: Int) throws { try append(DocumentEncoder.number(value)) }
    mutating func encode(_ value: Int8) throws { try append(DocumentEncoder.number(value)) }
    mutating func encode(_ value: Int16) throws { try append(DocumentEncoder.number(value)) }
    mutating func encode(_ value: Int32) throws { try append(DocumentEncoder.number(value)) }
    mutating func encode(_ value: Int64) throws { try append(DocumentEncoder.number(value)) }
    mutating func encode(_ value: UInt) throws { try append(DocumentEncoder.number(value)) }
    mutating func encode(_ value: UInt8) throws { try append(DocumentEncoder.number(value)) }
    mutating func encode(_ value: UInt16) throws { try append(DocumentEncoder.number(value)) }
    mutating func encode(_ value: UInt32) throws { try append(DocumentEncoder.number(value)) }
    mutating func encode(_ value: UInt64) throws { try append(DocumentEncoder.number(value)) }
    mutating func encode(_ value: Int128) throws { try append(DocumentEncoder.number(value)) }
    mutating func encode(_ value: UInt128) throws { try append(DocumentEncoder.number(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard array != nil else { throw DocumentEncodingNode.TooDeep() }
        var encoder = elementEncoder()
        try encoder.encode(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        elementEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        elementEncoder().unkeyedContainer()
    }

    /// The encoder of a new element.
    mutating func superEncoder() -> any Encoder { elementEncoder() }
}
