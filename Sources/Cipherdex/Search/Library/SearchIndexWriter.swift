import Foundation

/// The SQL of the search index: writing an outcome, removing documents, reading status.
enum SearchIndexWriter {
    /// Whether `uid` is indexed with exactly this content, with OCR in `ocrLanguages` (nil: off)
    /// and every OCR candidate page recognised (or failed) already.
    static func isCurrent(uid: String, contentHash: [UInt8], ocrLanguages: String? = nil, db: Connection) throws -> Bool
    {
        let row = try db.rows("SELECT state, content_hash FROM search_documents WHERE uid = ?", [.text(uid)]).first
        guard row?[0].textValue == "indexed" && row?[1].blobValue == contentHash else { return false }
        return try isOCRCurrent(uid: uid, contentHash: contentHash, languages: ocrLanguages, db: db)
    }

    /// Writes one outcome in the caller's transaction; `progress(uid, pagesDone, pageCount)` is
    /// called as pages are written. Returns the events to publish after the commit.
    static func write(
        _ outcome: IndexOutcome, tx: StoreTransaction, progress: (String, Int, Int) -> Void
    ) throws -> [IndexingEvent] {
        let db = tx.connection
        let job = outcome.job
        // Found now (before `uid` is written), removed after its row is in: a twin's copy or OCR
        // text that the new document shares (same content, deduplicated) is then still in use.
        let twins = job.replacesCanonicalTwins ? try canonicalTwinsToRemove(of: job.uid, db: db) : []
        let previous = try db.rows(
            "SELECT attachment_id, owns_attachment, content_hash FROM search_documents WHERE uid = ?", [.text(job.uid)]
        ).first
        let previousAttachment = previous?[1].integerValue == 1 ? previous?[0].textValue : nil
        let owns = try ownership(of: outcome, db: db)
        if case .unchanged = outcome.result {
            try db.execute(
                "UPDATE search_documents SET source_root = ?, source_size = ?, source_mtime = ? WHERE uid = ?",
                [text(job.sourceRoot), integer(job.sourceSize), real(job.sourceModified), .text(job.uid)])
            for twin in twins { _ = try remove(uid: twin, tx: tx) }
            return twins.map { .removed(uid: $0) } + [.unchanged(uid: job.uid)]
        }
        try deletePages(uid: job.uid, db: db)
        var events: [IndexingEvent] = twins.map { .removed(uid: $0) }
        var state = "indexed"
        var reason: String?
        var title: String?
        var metadata: [String: String] = [:]
        var pageCount = 0
        var ocrPages: [Int] = []
        switch outcome.result {
        case .indexed(let document):
            title = document.title
            metadata = document.metadata
            pageCount = document.pages.count
            // Pages recognised before (this content, these languages) get their kept text.
            let kept =
                try outcome.ocrLanguages.map {
                    try keptOCR(contentHash: outcome.contentHash, languages: $0, db: db)
                } ?? [:]
            for page in document.pages {
                if outcome.ocrLanguages != nil && page.needsOCR { ocrPages.append(page.index) }
                if outcome.ocrLanguages != nil, page.needsOCR, let known = kept[page.index], let body = known,
                    !body.isEmpty
                {
                    try insert(uid: job.uid, page: page.index, kind: 0, ordinal: 0, text: body, isOCR: true, db: db)
                } else if !page.text.isEmpty {
                    try insert(
                        uid: job.uid, page: page.index, kind: 0, ordinal: 0, text: page.text, isOCR: page.isOCR, db: db)
                }
                for (ordinal, annotation) in page.annotations.enumerated() where !annotation.isEmpty {
                    try insert(uid: job.uid, page: page.index, kind: 1, ordinal: ordinal, text: annotation, db: db)
                }
                progress(job.uid, page.index + 1, pageCount)
                events.append(.pageIndexed(uid: job.uid, pageIndex: page.index, pageCount: pageCount))
            }
            events.append(.finished(uid: job.uid, pageCount: pageCount))
        case .failed(let why):
            state = "failed"
            reason = why
            events.append(.failed(uid: job.uid, reason: why))
        case .locked:
            state = "locked"
            reason = "the document is password-protected"
            events.append(.locked(uid: job.uid))
        case .unchanged, .notStored:
            break
        }
        let metadataJSON = String(decoding: try JSONEncoder().encode(metadata), as: UTF8.self)
        try db.execute(
            """
            INSERT OR REPLACE INTO search_documents
                (uid, attachment_id, owns_attachment, file_extension, title, metadata, state, reason, page_count,
                 source_root, source_size, source_mtime, content_hash, ocr_languages, ocr_pages)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(job.uid), text(outcome.attachmentID), .int(owns), .text(job.fileExtension), text(title),
                .text(metadataJSON),
                .text(state), text(reason), .int(pageCount), text(job.sourceRoot), integer(job.sourceSize),
                real(job.sourceModified), .blob(outcome.contentHash), text(outcome.ocrLanguages),
                outcome.ocrLanguages == nil ? .null : .text(encodePages(ocrPages)),
            ])
        for twin in twins { _ = try remove(uid: twin, tx: tx) }
        if let previousHash = previous?[2].blobValue, previousHash != outcome.contentHash {
            try releaseOCR(contentHash: previousHash, db: db)
        }
        if let previousAttachment, previousAttachment != outcome.attachmentID {
            try releaseAttachment(previousAttachment, tx: tx)
        }
        return events
    }

    /// Whether the entry owns its stored copy (1: removed with the last entry that owns it): a
    /// copy the index stored itself, or content another entry's owned copy already held. A copy
    /// resolved to content the application stored (an attachment of its own, an indexed
    /// attachment) is the application's: removing or replacing the entry never removes it.
    private static func ownership(of outcome: IndexOutcome, db: Connection) throws -> Int {
        if case .attachment = outcome.job.source { return 0 }
        guard let id = outcome.attachmentID else { return 0 }
        guard outcome.sharesStoredCopy else { return 1 }
        let owned = try db.rows(
            "SELECT 1 FROM search_documents WHERE attachment_id = ? AND owns_attachment = 1 LIMIT 1", [.text(id)])
        return owned.isEmpty ? 0 : 1
    }

    /// Removes one document; false when it was not indexed.
    static func remove(uid: String, tx: StoreTransaction) throws -> Bool {
        let db = tx.connection
        guard
            let row = try db.rows(
                "SELECT attachment_id, owns_attachment, content_hash FROM search_documents WHERE uid = ?", [.text(uid)]
            ).first
        else {
            return false
        }
        try deletePages(uid: uid, db: db)
        try db.execute("DELETE FROM search_documents WHERE uid = ?", [.text(uid)])
        try releaseOCR(contentHash: row[2].blobValue, db: db)
        if let attachment = row[0].textValue, row[1].integerValue == 1 { try releaseAttachment(attachment, tx: tx) }
        return true
    }

    /// Removes every document; returns their UIDs.
    static func removeAll(tx: StoreTransaction) throws -> [String] {
        let db = tx.connection
        let rows = try db.rows(
            "SELECT uid, CASE owns_attachment WHEN 1 THEN attachment_id END FROM search_documents ORDER BY uid")
        try db.execute("DELETE FROM search_text")
        try db.execute("DELETE FROM search_pages")
        try db.execute("DELETE FROM search_documents")
        try db.execute("DELETE FROM search_ocr")
        for attachment in Set(rows.compactMap { $0[1].textValue }) { try releaseAttachment(attachment, tx: tx) }
        return rows.compactMap { $0[0].textValue }
    }

    /// The persisted status of `uid`.
    static func storedStatus(uid: String, db: Connection) throws -> IndexStatus {
        guard
            let row = try db.rows("SELECT state, reason, page_count FROM search_documents WHERE uid = ?", [.text(uid)])
                .first
        else {
            return .unknown
        }
        switch row[0].textValue {
        case "indexed": return .finished(pageCount: Int(row[2].integerValue ?? 0))
        case "locked": return .locked
        default: return .failed(reason: row[1].textValue ?? "unknown reason")
        }
    }

    /// Attachment ids the index keeps alive.
    static func heldAttachments(db: Connection) throws -> [String] {
        try db.rows("SELECT DISTINCT attachment_id FROM search_documents WHERE attachment_id IS NOT NULL").compactMap {
            $0[0].textValue
        }
    }

    /// The statement that inserts a `search_pages` row (see `insert`).
    static let pageRowInsertSQL =
        "INSERT OR FAIL INTO search_pages (uid, page_index, kind, ordinal, is_ocr) VALUES (?, ?, ?, ?, ?)"

    /// Inserts one page row and its text.
    ///
    /// `OR FAIL`: with `search_pages`' triggers (`PageRuns`) and its NOT NULL columns, a plain
    /// `INSERT` (conflict `ABORT`) opens a statement journal, and SQLCipher encrypts every page the
    /// statement first touches into it (two 16 KiB pages a row, in memory) only to drop them when
    /// the statement ends: about 140 µs a page row, a quarter of indexing's CPU. `FAIL` differs from
    /// `ABORT` only in not undoing the failed statement's own earlier changes, and every caller runs
    /// inside a transaction that an error rolls back whole (BENCHMARKS.md, "Indexing without
    /// statement journals").
    static func insert(
        uid: String, page: Int, kind: Int, ordinal: Int, text: String, isOCR: Bool = false, db: Connection
    ) throws {
        try db.execute(
            pageRowInsertSQL,
            [.text(uid), .int(page), .int(kind), .int(ordinal), .int(isOCR ? 1 : 0)])
        try db.execute(
            "INSERT INTO search_text (docid, body) VALUES (?, ?)",
            [.integer(db.lastInsertRowID), .text(indexable(text))])
    }

    /// `text` with each NUL as a space. FTS4 hands its tokenizer the text up to the first NUL
    /// only (a length of -1), while every byte is stored: the text after a NUL would be kept but
    /// never found, and previews would mark what the index does not hold. (Before SQLite text was
    /// bound with its length, the stored text itself ended at the first NUL.)
    static func indexable(_ text: String) -> String {
        guard text.utf8.contains(0) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\u{0}" ? " " : $0 }))
    }

    private static func deletePages(uid: String, db: Connection) throws {
        try db.execute(
            "DELETE FROM search_text WHERE docid IN (SELECT rowid FROM search_pages WHERE uid = ?)", [.text(uid)])
        try db.execute("DELETE FROM search_pages WHERE uid = ?", [.text(uid)])
    }

    /// Removes a stored original that the index itself stored, once no other index entry or
    /// document references it.
    private static func releaseAttachment(_ id: String, tx: StoreTransaction) throws {
        let db = tx.connection
        let stillIndexed =
            try db.scalar("SELECT count(*) FROM search_documents WHERE attachment_id = ?", [.text(id)])?.integerValue
            ?? 0
        guard stillIndexed == 0 else { return }
        let inDocument =
            try db.scalar("SELECT count(*) FROM documents WHERE instr(body, CAST(? AS BLOB)) > 0", [.text(id)])?
            .integerValue ?? 0
        guard inDocument == 0 else { return }
        // The application added it too (before the index's copy or after): it stays.
        guard try !AttachmentStorage.isClaimed(id, db: db) else { return }
        try tx.removeAttachment(id)
    }

    static func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    private static func integer(_ value: Int64?) -> SQLValue { value.map { .integer($0) } ?? .null }
    private static func real(_ value: Double?) -> SQLValue { value.map { .real($0) } ?? .null }
}
