/// The search index tables (schema version 4) and the recorded tokenizer.
///
/// ```sql
/// search_documents(uid PRIMARY KEY, attachment_id, owns_attachment, file_extension, title, metadata, state,
///                  reason, page_count, source_root, source_size, source_mtime, content_hash)
/// search_pages(rowid PRIMARY KEY, uid, page_index, kind /* 0 text, 1 annotation */, ordinal)
/// search_text USING fts4(body, tokenize=<recorded tokenizer>,
///                         compress=cipherdex_compress, uncompress=cipherdex_uncompress)
///                                                                  -- docid = search_pages.rowid
/// ```
/// `search_text` keeps the original text (FTS4's content table, compressed since migration 1001),
/// from which previews are cut.
///
/// Migration 1002 (OCR) adds `search_pages.is_ocr`, `search_documents.ocr_languages` and
/// `.ocr_pages`, and the OCR results kept per content (see `createOCR`).
enum SearchSchema {
    /// The setting that records the tokenizer.
    static let tokenizerSetting = "search.tokenizer"

    /// Migration 4.
    static func create(_ db: Connection) throws {
        try db.execute(
            """
            CREATE TABLE search_documents (
                uid TEXT PRIMARY KEY,
                attachment_id TEXT,
                owns_attachment INTEGER NOT NULL DEFAULT 0,
                file_extension TEXT NOT NULL,
                title TEXT,
                metadata TEXT NOT NULL DEFAULT '{}',
                state TEXT NOT NULL,
                reason TEXT,
                page_count INTEGER NOT NULL DEFAULT 0,
                source_root TEXT,
                source_size INTEGER,
                source_mtime REAL,
                content_hash BLOB
            ) WITHOUT ROWID;
            CREATE INDEX search_documents_root ON search_documents (source_root);
            CREATE TABLE search_pages (
                rowid INTEGER PRIMARY KEY,
                uid TEXT NOT NULL,
                page_index INTEGER NOT NULL,
                kind INTEGER NOT NULL,
                ordinal INTEGER NOT NULL
            );
            CREATE INDEX search_pages_uid ON search_pages (uid);
            """)
        try createTextTable(db, name: "search_text", tokenizer: .standard)
        try db.execute(
            "INSERT INTO cipherdex_settings (name, value) VALUES (?, ?)",
            [.text(tokenizerSetting), .text(SearchTokenizerKind.standard.rawValue)])
    }

    /// Migration 1002: what OCR needs.
    ///
    /// ```sql
    /// search_pages.is_ocr INTEGER NOT NULL DEFAULT 0      -- 1: the row's text was recognised (OCR)
    /// search_documents.ocr_languages TEXT                -- `eng+fra` when the last indexing ran OCR, else NULL
    /// search_documents.ocr_pages TEXT                    -- JSON array of the pages that qualify for OCR
    /// search_ocr(content_hash BLOB, page_index INTEGER, languages TEXT, body TEXT, failure TEXT,
    ///            PRIMARY KEY (content_hash, page_index, languages)) WITHOUT ROWID
    /// ```
    /// `search_ocr` keeps each recognised page (or why it failed) by document content, page and
    /// languages, so an unchanged document is never recognised twice and other languages
    /// recognise only the pages concerned; its rows go with the last document of that content.
    /// Columns already there are left alone (a store whose migration records were rewritten, as
    /// tests do to replay older migrations, may have them).
    static func createOCR(_ db: Connection) throws {
        let columns: [(table: String, column: String, definition: String)] = [
            ("search_pages", "is_ocr", "INTEGER NOT NULL DEFAULT 0"),
            ("search_documents", "ocr_languages", "TEXT"),
            ("search_documents", "ocr_pages", "TEXT"),
        ]
        for (table, column, definition) in columns {
            let present = try db.rows("PRAGMA table_info(\(table))").contains { $0[1].textValue == column }
            if !present { try db.execute("ALTER TABLE \(table) ADD COLUMN \(column) \(definition)") }
        }
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS search_ocr (
                content_hash BLOB NOT NULL,
                page_index INTEGER NOT NULL,
                languages TEXT NOT NULL,
                body TEXT,
                failure TEXT,
                PRIMARY KEY (content_hash, page_index, languages)
            ) WITHOUT ROWID
            """)
    }

    /// The FTS4 table, its page text compressed (`PageTextCompression`, search migration 1001).
    static func createTextTable(_ db: Connection, name: String, tokenizer: SearchTokenizerKind) throws {
        try db.execute(
            """
            CREATE VIRTUAL TABLE \(name) USING fts4(body, tokenize=\(tokenizer.ftsName), \
            compress=\(PageTextCompression.compressName), uncompress=\(PageTextCompression.uncompressName))
            """)
    }

    /// The vocabulary of `search_text` (an `fts4aux` view of its terms), for the patterns of a
    /// query left to FTS4 (`PatternExpansion`); it stores nothing of its own.
    static func createVocabulary(_ db: Connection) throws {
        try db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS search_text_terms USING fts4aux(search_text)")
    }

    /// The tokenizer the index was built with.
    static func tokenizer(_ db: Connection) throws -> SearchTokenizerKind {
        let value = try db.scalar("SELECT value FROM cipherdex_settings WHERE name = ?", [.text(tokenizerSetting)])
        return value?.textValue.flatMap(SearchTokenizerKind.init(rawValue:)) ?? .standard
    }

    /// Rows moved per statement by `rebuild`.
    static let rebuildBatch = 1000

    /// The temporary table `rebuild` leaves on its connection: the whole index was cut again by
    /// this build's tokenizer (`TokenizerRecut` then has nothing to do).
    static let recutMarker = "search_index_recut"

    /// Rebuilds the full-text table with another tokenizer (and the current table options), in
    /// the caller's transaction, from its own content. The old index is never read, so its
    /// segments and lengths are deleted first and the new index reuses their pages; the text then
    /// moves 1,000 rows at a time, each batch deleted from the old content table as it is copied:
    /// the file grows by about the difference between the two tables, not by a second copy
    /// (a 100,000-page store: BENCHMARKS.md, "Search at scale").
    static func rebuild(_ db: Connection, tokenizer: SearchTokenizerKind) throws {
        // Noted for later migrations of the same open (a connection's temporary table, in
        // memory, gone with a rollback): the index is now cut by this build's tokenizer.
        try db.execute("CREATE TEMP TABLE IF NOT EXISTS \(recutMarker) (unused)")
        try createTextTable(db, name: "search_text_rebuild", tokenizer: tokenizer)
        try PageLengths.dropTriggers(db)
        for shadow in ["search_text_segments", "search_text_segdir", "search_text_docsize"] {
            try db.execute("DELETE FROM \(shadow)")
        }
        var moved = Int64.min
        while let upTo = try db.scalar(
            """
            SELECT max(docid) FROM (SELECT docid FROM search_text_content WHERE docid > ? ORDER BY docid LIMIT ?)
            """, [.integer(moved), .integer(Int64(rebuildBatch))])?.integerValue
        {
            let range: [SQLValue] = [.integer(moved), .integer(upTo)]
            try db.execute(
                """
                INSERT INTO search_text_rebuild (docid, body)
                SELECT docid, \(PageTextCompression.uncompressName)(c0body) FROM search_text_content
                WHERE docid > ? AND docid <= ? ORDER BY docid
                """, range)
            try db.execute("DELETE FROM search_text_content WHERE docid > ? AND docid <= ?", range)
            moved = upTo
        }
        let hasVocabulary =
            try db.scalar(
                "SELECT count(*) FROM sqlite_master WHERE name = 'search_text_terms'")?.integerValue == 1
        if hasVocabulary { try db.execute("DROP TABLE search_text_terms") }
        try db.execute("DROP TABLE search_text")
        try db.execute("ALTER TABLE search_text_rebuild RENAME TO search_text")
        if hasVocabulary { try createVocabulary(db) }
        try PageLengths.create(db)
        try db.execute(
            "INSERT OR REPLACE INTO cipherdex_settings (name, value) VALUES (?, ?)",
            [.text(tokenizerSetting), .text(tokenizer.rawValue)])
    }
}

/// Which tokenizer the index uses. Recorded in the store; changing it rebuilds the index.
public enum SearchTokenizerKind: String, Codable, Sendable, CaseIterable {
    /// Unicode words, case- and diacritics-insensitive, CJK as bigrams.
    case standard = "cipherdex"
    /// The same plus English (Porter) stemming.
    case englishStemming = "cipherdex_stem"

    var ftsName: String { rawValue }
}
