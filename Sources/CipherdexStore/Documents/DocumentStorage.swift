/// Every SQL statement of the documents feature, over one connection (the writer inside a
/// transaction, or a reader snapshot).
struct DocumentStorage {
    let db: Connection

    // MARK: Collections

    /// The collection's row, or nil when it does not exist.
    func collection(_ name: String) throws -> CollectionInfo? {
        guard let row = try db.rows("SELECT indexed_fields FROM collections WHERE name = ?", [.text(name)]).first,
            let text = row[0].textValue
        else { return nil }
        return CollectionInfo(name: name, indexedFields: try CollectionInfo.decodeFields(text, collection: name))
    }

    /// The collection's row; throws `unknownCollection` when it does not exist.
    func existingCollection(_ name: String) throws -> CollectionInfo {
        guard let info = try collection(name) else { throw DocumentError.unknownCollection(name) }
        return info
    }

    /// The collection's row, creating the collection (with no index) when it does not exist.
    func ensureCollection(_ name: String) throws -> CollectionInfo {
        if let info = try collection(name) { return info }
        try CollectionInfo.validateNewName(name)
        let info = CollectionInfo(name: name, indexedFields: [])
        try db.execute(
            "INSERT INTO collections (name, indexed_fields) VALUES (?, ?)", [.text(name), .text(info.encodedFields)])
        return info
    }

    /// Creates a collection; throws `collectionExists` when it exists.
    func createCollection(_ info: CollectionInfo) throws {
        guard try collection(info.name) == nil else { throw DocumentError.collectionExists(info.name) }
        try CollectionInfo.validateNewName(info.name)
        try db.execute(
            "INSERT INTO collections (name, indexed_fields) VALUES (?, ?)",
            [.text(info.name), .text(info.encodedFields)])
    }

    /// Records the collection's indexed fields.
    func saveIndexedFields(_ info: CollectionInfo) throws {
        try db.execute(
            "UPDATE collections SET indexed_fields = ? WHERE name = ?", [.text(info.encodedFields), .text(info.name)])
    }

    /// Every collection name, sorted.
    func collectionNames() throws -> [String] {
        try db.rows("SELECT name FROM collections ORDER BY name").compactMap { $0[0].textValue }
    }

    /// Deletes the collection with its documents and index entries; returns the removed ids.
    func dropCollection(_ name: String) throws -> [String] {
        let ids = try db.rows("SELECT id FROM documents WHERE collection = ? ORDER BY id", [.text(name)]).compactMap {
            $0[0].textValue
        }
        try db.execute("DELETE FROM document_index WHERE collection = ?", [.text(name)])
        try db.execute("DELETE FROM documents WHERE collection = ?", [.text(name)])
        try db.execute("DELETE FROM collections WHERE name = ?", [.text(name)])
        return ids
    }

    // MARK: Documents

    /// The row id of a document, or nil.
    func rowID(collection: String, id: String) throws -> Int64? {
        try db.rows("SELECT rowid FROM documents WHERE collection = ? AND id = ?", [.text(collection), .text(id)])
            .first?[0]
            .integerValue
    }

    /// Inserts a new document and its index entries.
    func insert(_ info: CollectionInfo, id: String, value: JSONValue) throws {
        try db.execute(
            "INSERT INTO documents (collection, id, body) VALUES (?, ?, ?)",
            [.text(info.name), .text(id), .blob(value.canonicalBytes)])
        try addIndexEntries(info, rowID: db.lastInsertRowID, value: value, fields: info.indexedFields)
    }

    /// Replaces a document's content and its index entries.
    func update(_ info: CollectionInfo, rowID: Int64, value: JSONValue) throws {
        try db.execute("UPDATE documents SET body = ? WHERE rowid = ?", [.blob(value.canonicalBytes), .integer(rowID)])
        try db.execute("DELETE FROM document_index WHERE doc = ?", [.integer(rowID)])
        try addIndexEntries(info, rowID: rowID, value: value, fields: info.indexedFields)
    }

    /// Deletes a document (its index entries go with it).
    func delete(rowID: Int64) throws {
        try db.execute("DELETE FROM document_index WHERE doc = ?", [.integer(rowID)])
        try db.execute("DELETE FROM documents WHERE rowid = ?", [.integer(rowID)])
    }

    /// Number of documents in a collection.
    func count(collection: String) throws -> Int {
        Int(
            try db.scalar("SELECT count(*) FROM documents WHERE collection = ?", [.text(collection)])?.integerValue ?? 0
        )
    }

    // MARK: Indexes

    /// Adds the index entries of one document for `fields` (a missing field gets no entry).
    func addIndexEntries(_ info: CollectionInfo, rowID: Int64, value: JSONValue, fields: [FieldPath]) throws {
        for field in fields {
            guard let fieldValue = value.value(at: field) else { continue }
            try db.execute(
                "INSERT INTO document_index (collection, field, key, doc) VALUES (?, ?, ?, ?)",
                [.text(info.name), .text(field.rawValue), .blob(fieldValue.indexKey), .integer(rowID)])
        }
    }

    /// Builds the index of `field` for every document of the collection.
    func buildIndex(_ info: CollectionInfo, field: FieldPath) throws {
        var entries: [(Int64, JSONValue)] = []
        try db.forEachRowView("SELECT rowid, body FROM documents WHERE collection = ?", [.text(info.name)]) { row in
            let value = try Self.withBody(row, column: 1, collection: info.name) {
                try Self.decodeBody($0, collection: info.name)
            }
            entries.append((row.integer(0), value))
        }
        for (rowID, value) in entries {
            try addIndexEntries(info, rowID: rowID, value: value, fields: [field])
        }
    }

    /// Deletes the index of `field`.
    func dropIndex(collection: String, field: FieldPath) throws {
        try db.execute(
            "DELETE FROM document_index WHERE collection = ? AND field = ?", [.text(collection), .text(field.rawValue)])
    }

    /// Number of index entries of a field (for tests).
    func indexEntryCount(collection: String, field: String) throws -> Int {
        Int(
            try db.scalar(
                "SELECT count(*) FROM document_index WHERE collection = ? AND field = ?",
                [.text(collection), .text(field)])?
                .integerValue ?? 0)
    }
}
