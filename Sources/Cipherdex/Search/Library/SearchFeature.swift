/// Full-text search as a feature of the store (StoreFeature): its tables, its migrations and
/// what each connection needs. The store never names search: `import Cipherdex`'s
/// `Store.open(_:)` passes this feature in.
enum SearchFeature {
    /// The feature's identifier, also the key of its `SearchLibrary` among the store's feature
    /// states.
    static let identifier = "search"

    /// Migrations 4, 7 and 8 (the numbers they had when the store and search were one module, so
    /// existing stores open unchanged), and 1000–1999 for later ones (1000: tokenizer revision 3,
    /// 1001: compressed page text, 1002: OCR, 1003: page text dictionary, 1004: page lengths, 1005: page runs,
    /// 1006: tokenizer revision 4, 1007: tokenizer revision 5, 1008: tokenizer revision 6,
    /// 1009: tokenizer revision 7).
    static let feature = StoreFeature(
        identifier: identifier, reservedVersions: [4...4, 7...8, 1000...1999],
        migrations: [
            Migrator.Migration(version: 4, name: "search index") { db in
                try SearchSchema.create(db)
            },
            Migrator.Migration(version: 7, name: "tokenizer revision 2") { db in
                // Apostrophes separate words, format characters are ignored, Thai, Lao, Khmer and
                // Myanmar are bigrammed and bigram runs go on across white space: the index is cut
                // again from the stored page text with the current tokenizer.
                try SearchSchema.rebuild(db, tokenizer: try SearchSchema.tokenizer(db))
            },
            Migrator.Migration(version: 8, name: "search vocabulary") { db in
                try SearchSchema.createVocabulary(db)
            },
            // Tokenizer revision 3 (issue 9): a bidi embedding's or isolate's start or end alone
            // no longer separates words (`(\u{202A}15\u{202C}ב)` is `15ב`); only the end of one
            // run directly followed by the start of another does; the Arabic tatweel is dropped;
            // Kangxi radicals are their ideographs. The index is cut again, as in 7.
            Migrator.Migration(version: 1000, name: "tokenizer revision 3") { db in
                try SearchSchema.rebuild(db, tokenizer: try SearchSchema.tokenizer(db))
            },
            // Issue 12: the page text kept for previews is compressed (zlib) before SQLCipher
            // encrypts it (`PageTextCompression`): the table is rebuilt with FTS4's compress and
            // uncompress options, from its own content, in the open's transaction.
            Migrator.Migration(version: 1001, name: "compressed page text") { db in
                try SearchSchema.rebuild(db, tokenizer: try SearchSchema.tokenizer(db))
            },
            // OCR of scanned pages (issue 15): the OCR flag of a page row, the OCR languages and
            // candidate pages of a document, and the kept OCR results (SearchSchema.createOCR).
            Migrator.Migration(version: 1002, name: "ocr") { db in
                try SearchSchema.createOCR(db)
            },
            // Issue 12: page text is compressed with a preset dictionary (`PageTextDictionary`,
            // BLOB tag 2). Nothing is rewritten (tag-1 values stay and are read); the record makes
            // a build without the dictionary refuse the store with `unsupportedScheme` rather than
            // report its new page text as damaged.
            Migrator.Migration(version: 1003, name: "page text dictionary") { _ in },
            // Issue 12: every page's token count, 256 pages a row, kept by triggers on FTS4's
            // `search_text_docsize` (`PageLengths`), so that a common word's search reads a few
            // thousand rows of lengths rather than one a page.
            Migrator.Migration(version: 1004, name: "page lengths") { db in
                try PageLengths.create(db)
            },
            // Issue 12: `search_pages` in runs of consecutive rows, kept by triggers on it
            // (`PageRuns`), so that describing a search's best rows reads a few pages, not one
            // random page of `search_pages` a row.
            Migrator.Migration(version: 1005, name: "page runs") { db in
                try PageRuns.create(db)
            },
            // Tokenizer revision 4: a word hyphenated at a line end with a soft hyphen
            // (`desoxy\u{AD}⏎corticostérone`) is one word. Only the pages that hold such a soft
            // hyphen are cut again (`TokenizerRecut`, `SoftHyphenRecut`), not the whole index.
            Migrator.Migration(version: 1006, name: "tokenizer revision 4") { db in
                try TokenizerRecut.run(db, revision: 4)
            },
            // Tokenizer revision 5: a bigram run (Thai, Lao, Khmer, Myanmar, Han, kana) goes on
            // across a zero-width space as across a space, and a decomposed Thai or Lao AM
            // (`กํา`) is cut as the composed one (`กำ`). Only the pages that hold a zero-width
            // space or a NIKHAHIT are cut again (`ZeroWidthSpaceRecut`).
            Migrator.Migration(version: 1007, name: "tokenizer revision 5") { db in
                try TokenizerRecut.run(db, revision: 5)
            },
            // Tokenizer revision 6: a word hyphenated at a line end (`log-⏎likelihood`) is also
            // found by its parts, and is still one word. Only the pages that hold a hyphen
            // directly before a line break are cut again (`LineEndHyphenRecut`).
            Migrator.Migration(version: 1008, name: "tokenizer revision 6") { db in
                try TokenizerRecut.run(db, revision: 6)
            },
            // Tokenizer revision 7: half-width voiced kana (`ｶﾞ`) are the full-width kana (`ガ`),
            // and decomposed Hangul (conjoining jamo) is cut as its syllables. When any page
            // holds such text, the whole index is cut again (`ComposedCJKRebuild`).
            Migrator.Migration(version: 1009, name: "tokenizer revision 7") { db in
                try ComposedCJKRebuild.run(db)
            },
        ],
        // FTS tokenizers and SQL functions are registered per connection.
        configureConnection: { try $0.registerSearchSupport() },
        // The originals the index stored for its documents.
        heldAttachments: { try SearchIndexWriter.heldAttachments(db: $0) },
        // Content hashes (and the OCR results found by them) keyed again after a conversion.
        contentKeyChanged: { try SearchIndexWriter.rekeyContentHashes($0) })
}
