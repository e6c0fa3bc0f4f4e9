extension DocumentStorage {
    /// Visits the parsed body of every document, in any collection, that may reference an
    /// attachment (its canonical bytes contain the reference key; the rest are skipped unparsed).
    func scanAllBodies(_ body: (JSONValue) throws -> Void) throws {
        let sql = "SELECT body FROM documents WHERE instr(body, CAST(? AS BLOB)) > 0"
        try db.forEachRow(sql, [.text(AttachmentToken.referenceKey)]) { row in
            guard let bytes = row[0].blobValue, let value = try? JSONValue(parsing: bytes) else {
                throw StoreError.storeCorrupted(reason: "a document body does not parse")
            }
            try body(value)
        }
    }
}
