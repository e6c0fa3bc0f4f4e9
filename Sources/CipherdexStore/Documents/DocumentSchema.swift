/// The tables of documents, collections and field indexes (schema migration 2), and the
/// rebuild of every index when the key format changes (migration 5: exact number keys).
enum DocumentSchema {
    /// Creates the tables; run once by the store's migrator.
    static func create(_ db: Connection) throws {
        try db.execute(
            """
            CREATE TABLE collections (
                name TEXT NOT NULL PRIMARY KEY,
                indexed_fields TEXT NOT NULL DEFAULT '[]'
            );
            CREATE TABLE documents (
                rowid INTEGER PRIMARY KEY,
                collection TEXT NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
                id TEXT NOT NULL,
                body BLOB NOT NULL,
                UNIQUE (collection, id)
            );
            CREATE TABLE document_index (
                collection TEXT NOT NULL,
                field TEXT NOT NULL,
                key BLOB NOT NULL,
                doc INTEGER NOT NULL REFERENCES documents(rowid) ON DELETE CASCADE
            );
            CREATE INDEX document_index_lookup ON document_index (collection, field, key);
            CREATE INDEX document_index_doc ON document_index (doc);
            """)
    }

    /// Recomputes every index entry of every collection with the current `JSONValue.indexKey`
    /// format; run by the migrator, in its transaction, when that format changes.
    static func rebuildIndexes(_ db: Connection) throws {
        let storage = DocumentStorage(db: db)
        try db.execute("DELETE FROM document_index")
        for name in try storage.collectionNames() {
            let info = try storage.existingCollection(name)
            for field in info.indexedFields {
                try storage.buildIndex(info, field: field)
            }
        }
    }
}
