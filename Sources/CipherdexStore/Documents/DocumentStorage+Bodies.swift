import Foundation

/// Reading documents' stored bodies (canonical JSON text, FORMAT.md) in place: as a value
/// (parsed) or as their text (checked by `JSONValidator` without building anything).
extension DocumentStorage {
    /// A document, or nil.
    func document(collection: String, id: String) throws -> Document? {
        try body(collection: collection, id: id) { bytes in
            Document(uncheckedID: id, value: try Self.decodeBody(bytes, collection: collection))
        }
    }

    /// A document's stored JSON text, checked (`checkText`), or nil. The body is read with
    /// incremental blob I/O into the returned buffer (`Connection.blob`), its only copy. Both
    /// reads run in the connection's one transaction (a reader's snapshot, or the writer's
    /// transaction), so the row id still names this document when its blob is opened.
    func text(collection: String, id: String) throws -> Data? {
        guard
            let row = try db.rows(
                "SELECT rowid, typeof(body) FROM documents WHERE collection = ? AND id = ?",
                [.text(collection), .text(id)]
            ).first, let rowID = row[0].integerValue
        else { return nil }
        guard row[1].textValue == "blob" else { throw Self.corruptBody(collection: collection) }
        let text = try db.blob(table: "documents", column: "body", rowID: rowID)
        try text.withUnsafeBytes { try Self.checkText($0, collection: collection) }
        return text
    }

    /// `read` applied to the body of a document in place, or nil when there is none.
    private func body<T>(collection: String, id: String, _ read: (UnsafeRawBufferPointer) throws -> T) throws -> T? {
        let statement = try db.cachedStatement("SELECT body FROM documents WHERE collection = ? AND id = ?")
        try statement.bind([.text(collection), .text(id)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try Self.withBody(statement.rowView, column: 0, collection: collection, read)
    }

    /// Documents in id order, paginated (`limit` nil for all).
    func list(collection: String, limit: Int?, offset: Int) throws -> [Document] {
        var documents: [Document] = []
        try db.forEachRowView(
            "SELECT id, body FROM documents WHERE collection = ? ORDER BY id LIMIT ? OFFSET ?",
            [.text(collection), .int(limit ?? -1), .int(offset)]
        ) { row in
            let value = try Self.withBody(row, column: 1, collection: collection) {
                try Self.decodeBody($0, collection: collection)
            }
            documents.append(Document(uncheckedID: Self.id(row), value: value))
        }
        return documents
    }

    // MARK: Scans

    /// Visits every document of a collection in id order, its id and its body in place (valid
    /// only during the call); `body` returns false to stop.
    func scan(collection: String, _ body: (String, UnsafeRawBufferPointer) throws -> Bool) throws {
        try visit(
            "SELECT id, body FROM documents WHERE collection = ? ORDER BY id", [.text(collection)],
            collection: collection, body)
    }

    /// Visits, in id order, the documents whose index key for `field` lies in `lower...upper`
    /// (id and body in place, as `scan`).
    func indexScan(
        collection: String, field: FieldPath, lower: [UInt8], upper: [UInt8],
        _ body: (String, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        let sql = """
            SELECT d.id, d.body FROM document_index AS i JOIN documents AS d ON d.rowid = i.doc
            WHERE i.collection = ? AND i.field = ? AND i.key BETWEEN ? AND ? ORDER BY d.id
            """
        try visit(
            sql, [.text(collection), .text(field.rawValue), .blob(lower), .blob(upper)], collection: collection, body)
    }

    /// Steps through `sql`'s (id, body) rows until `body` returns false.
    private func visit(
        _ sql: String, _ arguments: [SQLValue], collection: String,
        _ body: (String, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        let statement = try db.cachedStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        while try statement.step() {
            let row = statement.rowView
            let id = Self.id(row)
            if try !Self.withBody(row, column: 1, collection: collection, { try body(id, $0) }) { return }
        }
    }

    // MARK: Bodies

    /// The id in column 0 of a row.
    private static func id(_ row: RowView) -> String {
        row.withBytes(0) { String(decoding: $0, as: UTF8.self) }
    }

    /// `read` applied to the body in `column` in place; a body that is not a blob is
    /// `storeCorrupted` (Cipherdex writes every body as one).
    static func withBody<T>(
        _ row: RowView, column: Int, collection: String, _ read: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        guard row.storageClass(column) == .blob else { throw corruptBody(collection: collection) }
        return try row.withBytes(column, read)
    }

    /// A stored body as a value; `storeCorrupted` when it does not parse or is not an object.
    static func decodeBody(_ bytes: UnsafeRawBufferPointer, collection: String) throws -> JSONValue {
        guard let value = try? JSONValue.parse(bytes.assumingMemoryBound(to: UInt8.self)), case .object = value else {
            throw corruptBody(collection: collection)
        }
        return value
    }

    /// A stored body's text, copied once, after `checkText`.
    static func checkedText(_ bytes: UnsafeRawBufferPointer, collection: String) throws -> Data {
        try checkText(bytes, collection: collection)
        return Data(bytes)
    }

    /// Checks a stored body with `JSONValidator`, completely (it refuses exactly what the parser
    /// refuses), and that its top level is an object: `storeCorrupted` otherwise, as
    /// `decodeBody` would throw.
    static func checkText(_ bytes: UnsafeRawBufferPointer, collection: String) throws {
        let text = bytes.assumingMemoryBound(to: UInt8.self)
        do {
            try JSONValidator.validate(text, completely: true)
        } catch {
            throw corruptBody(collection: collection)
        }
        // Valid text whose first byte other than white space opens an object is an object.
        let whitespace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
        guard let first = text.first(where: { !whitespace.contains($0) }), first == UInt8(ascii: "{") else {
            throw corruptBody(collection: collection)
        }
    }

    private static func corruptBody(collection: String) -> StoreError {
        .storeCorrupted(reason: "a document body in collection \(collection) does not parse")
    }
}
