extension Store {
    /// Every schema migration of the store database, in order. Features add theirs here.
    static let migrator: Migrator = {
        var migrator = Migrator()
        migrator.register(version: 1, name: "store settings") { db in
            try db.execute("CREATE TABLE cipherdex_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
        }
        migrator.register(version: 2, name: "documents") { db in
            try DocumentSchema.create(db)
        }
        migrator.register(version: 3, name: "attachments") { db in
            try db.execute(
                """
                CREATE TABLE attachments (
                    id TEXT PRIMARY KEY,
                    content_hash BLOB NOT NULL UNIQUE,
                    length INTEGER NOT NULL,
                    content_type TEXT,
                    metadata TEXT NOT NULL DEFAULT '{}'
                )
                """)
        }
        migrator.register(version: 4, name: "search index") { db in
            try SearchSchema.create(db)
        }
        migrator.register(version: 5, name: "exact number index keys") { db in
            try DocumentSchema.rebuildIndexes(db)
        }
        migrator.register(version: 6, name: "attachment removals") { db in
            // Ids whose row's deletion committed and whose file may still exist: what proves a
            // file unneeded (AttachmentStorage.reconcile).
            try db.execute("CREATE TABLE IF NOT EXISTS attachment_removals (id TEXT PRIMARY KEY) WITHOUT ROWID")
        }
        migrator.register(version: 7, name: "tokenizer revision 2") { db in
            // Apostrophes separate words, format characters are ignored, Thai, Lao, Khmer and
            // Myanmar are bigrammed and bigram runs go on across white space: the index is cut
            // again from the stored page text with the current tokenizer.
            try SearchSchema.rebuild(db, tokenizer: try SearchSchema.tokenizer(db))
        }
        migrator.register(version: 8, name: "search vocabulary") { db in
            try SearchSchema.createVocabulary(db)
        }
        // Tokenizer revision 3 (issue 9): a bidi embedding's or isolate's start or end alone no
        // longer separates words (`(\u{202A}15\u{202C}ב)` is `15ב`); only the end of one run
        // directly followed by the start of another does; the Arabic tatweel is dropped; Kangxi
        // radicals are their ideographs. The index is cut again, as in 7.
        migrator.register(version: 9, name: "tokenizer revision 3") { db in
            try SearchSchema.rebuild(db, tokenizer: try SearchSchema.tokenizer(db))
        }
        return migrator
    }()
}
