import Foundation

extension SearchIndexWriter {
    /// After a conversion changed the deduplication key (`StoreFeature.contentKeyChanged`): every
    /// `search_documents.content_hash` is keyed again with the new key (FORMAT.md 5), and the kept
    /// OCR results follow their content's new hash, so an unchanged document is not indexed (or
    /// recognised) again after `encrypt`, `reencrypt` or `decrypt`.
    ///
    /// A document with a stored original is hashed from the new generation's copy of it. One
    /// indexed in place (folder sync) is hashed from its file, read once under both keys: when the
    /// file cannot be read, or no longer hashes to the recorded value under the old key (it
    /// changed since it was indexed), the hash becomes NULL — the next sync that finds the file's
    /// size or modification time changed indexes it again. OCR results of content no document
    /// was hashed again for are dropped: no hash would find them any more.
    static func rekeyContentHashes(_ change: ContentKeyChange) throws {
        let db = change.connection
        var renamed: [[UInt8]: [UInt8]] = [:]
        var updates: [(uid: String, hash: [UInt8]?)] = []
        let rows = try db.rows(
            "SELECT uid, attachment_id, source_root, content_hash FROM search_documents WHERE length(content_hash) > 0")
        for row in rows {
            guard let uid = row[0].textValue, let old = row[3].blobValue else { continue }
            var new: [UInt8]?
            if let attachment = row[1].textValue {
                new = try change.newContentHash(ofAttachment: attachment)
            } else if let root = row[2].textValue, let hashes = change.contentHashes(ofFileAt: root + "/" + uid),
                hashes.old == old
            {
                new = hashes.new
            }
            updates.append((uid, new))
            if let new { renamed[old] = new }
        }
        for (uid, hash) in updates {
            try db.execute(
                "UPDATE search_documents SET content_hash = ? WHERE uid = ?",
                [hash.map { .blob($0) } ?? .null, .text(uid)])
        }
        let kept = Set(renamed.values)
        let ocrHashes = try db.rows("SELECT DISTINCT content_hash FROM search_ocr").compactMap { $0[0].blobValue }
        for old in ocrHashes where renamed[old] == nil && !kept.contains(old) {
            try db.execute("DELETE FROM search_ocr WHERE content_hash = ?", [.blob(old)])
        }
        for (old, new) in renamed where old != new {
            try db.execute(
                "UPDATE OR REPLACE search_ocr SET content_hash = ? WHERE content_hash = ?", [.blob(new), .blob(old)])
        }
    }
}
