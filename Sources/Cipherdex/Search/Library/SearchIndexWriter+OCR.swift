import Foundation

/// The SQL of OCR (migration 1002): kept results by content, page and languages, a document's
/// candidate pages, and the OCR text of a page written into the index.
extension SearchIndexWriter {
    /// The kept OCR results of `contentHash` in `languages`, by page: the text, or nil for a
    /// page whose recognition failed for the page's own sake (damaged, too large). A failure of
    /// the environment (`retriedFailures`: a time-out on a busy machine, a killed or crashed
    /// helper, language data that could not be loaded) is not kept: the next indexing of the
    /// document recognises the page again (it was kept for good, the page never found).
    static func keptOCR(contentHash: [UInt8], languages: String, db: Connection) throws -> [Int: String?] {
        var kept: [Int: String?] = [:]
        try db.forEachRow(
            "SELECT page_index, body, failure FROM search_ocr WHERE content_hash = ? AND languages = ?",
            [.blob(contentHash), .text(languages)]
        ) { row in
            if let failure = row[2].textValue, retriedFailures.contains(where: { failure.hasPrefix($0 + ":") }) {
                return
            }
            kept[Int(row[0].integerValue ?? 0)] = .some(row[1].textValue)
        }
        return kept
    }

    /// The `ExtractionError` names of page failures that are the environment's, and pages not
    /// tried for the document's OCR budget (`OCRDocumentRun`): tried again.
    static let retriedFailures = [
        "timedOut", "memoryLimitExceeded", "helperCrashed", "helperUnavailable", "libraryUnavailable",
        OCRDocumentRun.failureName,
    ]

    /// Whether every candidate page of `uid`'s last indexing has a kept result in `languages`
    /// (or OCR is off now, `languages` nil: what the index holds, recognised or not, stays).
    static func isOCRCurrent(uid: String, contentHash: [UInt8], languages: String?, db: Connection) throws -> Bool {
        let row = try db.rows("SELECT ocr_languages, ocr_pages FROM search_documents WHERE uid = ?", [.text(uid)]).first
        let recorded = row?[0].textValue
        // OCR off: the text in the index stays as it is, recognised text included (as a folder
        // sync keeps it; `add` of the same file without OCR threw it away).
        guard let languages else { return true }
        guard recorded == languages else { return false }
        let candidates = decodePages(row?[1].textValue)
        guard !candidates.isEmpty else { return true }
        let kept = try keptOCR(contentHash: contentHash, languages: languages, db: db)
        return candidates.allSatisfy { kept[$0] != nil }
    }

    /// Records the result of one page's OCR, and when `uid` is still indexed with this content
    /// and these languages, puts the recognised text in the index as the page's text
    /// (`is_ocr` 1). Returns whether the index changed.
    @discardableResult
    static func writeOCRPage(
        uid: String, contentHash: [UInt8], languages: String, pageIndex: Int, body: String?, failure: String?,
        db: Connection
    ) throws -> Bool {
        try db.execute(
            "INSERT OR REPLACE INTO search_ocr (content_hash, page_index, languages, body, failure) VALUES (?, ?, ?, ?, ?)",
            [.blob(contentHash), .int(pageIndex), .text(languages), text(body), text(failure)])
        guard
            let row = try db.rows(
                "SELECT content_hash, ocr_languages, state FROM search_documents WHERE uid = ?", [.text(uid)]
            ).first,
            row[0].blobValue == contentHash, row[1].textValue == languages, row[2].textValue == "indexed",
            let body, !body.isEmpty
        else { return false }
        try db.execute(
            """
            DELETE FROM search_text WHERE docid IN
                (SELECT rowid FROM search_pages WHERE uid = ? AND page_index = ? AND kind = 0)
            """,
            [.text(uid), .int(pageIndex)])
        try db.execute(
            "DELETE FROM search_pages WHERE uid = ? AND page_index = ? AND kind = 0", [.text(uid), .int(pageIndex)])
        try insert(uid: uid, page: pageIndex, kind: 0, ordinal: 0, text: body, isOCR: true, db: db)
        return true
    }

    /// Drops the kept OCR results of `contentHash` when no indexed document has that content.
    static func releaseOCR(contentHash: [UInt8]?, db: Connection) throws {
        guard let contentHash, !contentHash.isEmpty,
            try db.scalar("SELECT 1 FROM search_ocr WHERE content_hash = ? LIMIT 1", [.blob(contentHash)]) != nil
        else { return }
        let used =
            try db.scalar(
                "SELECT count(*) FROM search_documents WHERE content_hash = ?", [.blob(contentHash)])?.integerValue ?? 0
        guard used == 0 else { return }
        try db.execute("DELETE FROM search_ocr WHERE content_hash = ?", [.blob(contentHash)])
    }

    /// Where OCR stands for `uid`, or nil when its last indexing did not run OCR.
    static func ocrStatus(uid: String, db: Connection) throws -> OCRStatus? {
        guard
            let row = try db.rows(
                "SELECT ocr_languages, ocr_pages, content_hash FROM search_documents WHERE uid = ?", [.text(uid)]
            ).first,
            let languages = row[0].textValue
        else { return nil }
        let candidates = decodePages(row[1].textValue)
        var recognized: [Int] = []
        var failures: [OCRStatus.PageFailure] = []
        let wanted = Set(candidates)
        try db.forEachRow(
            "SELECT page_index, body, failure FROM search_ocr WHERE content_hash = ? AND languages = ? ORDER BY page_index",
            [.blob(row[2].blobValue ?? []), .text(languages)]
        ) { page in
            let index = Int(page[0].integerValue ?? 0)
            guard wanted.contains(index) else { return }
            if page[1].textValue != nil {
                recognized.append(index)
            } else {
                failures.append(.init(pageIndex: index, reason: page[2].textValue ?? "unknown reason"))
            }
        }
        return OCRStatus(
            languages: languages.split(separator: "+").map(String.init), candidatePages: candidates,
            recognizedPages: recognized, failures: failures)
    }

    /// The candidate pages recorded as JSON.
    static func encodePages(_ pages: [Int]) -> String {
        String(decoding: (try? JSONEncoder().encode(pages)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// The candidate pages from their JSON (none when absent or malformed).
    static func decodePages(_ json: String?) -> [Int] {
        guard let json, let pages = try? JSONDecoder().decode([Int].self, from: Data(json.utf8)) else { return [] }
        return pages
    }
}
