extension Store {
    /// The store's own schema: settings, documents, attachments. Migration versions are one
    /// sequence shared with the features above the store (StoreFeature): 4, 7 and 8 are search's,
    /// 1000–1999 are reserved for search from now on, and the store's next migrations are 9, 10, …
    static let coreFeature = StoreFeature(
        identifier: "store", reservedVersions: [1...3, 5...6, 9...999],
        migrations: [
            Migrator.Migration(version: 1, name: "store settings") { db in
                try db.execute(
                    "CREATE TABLE cipherdex_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
            },
            Migrator.Migration(version: 2, name: "documents") { db in
                try DocumentSchema.create(db)
            },
            Migrator.Migration(version: 3, name: "attachments") { db in
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
            },
            Migrator.Migration(version: 5, name: "exact number index keys") { db in
                try DocumentSchema.rebuildIndexes(db)
            },
            Migrator.Migration(version: 6, name: "attachment removals") { db in
                // Ids whose row's deletion committed and whose file may still exist: what proves a
                // file unneeded (AttachmentStorage.reconcile).
                try db.execute("CREATE TABLE IF NOT EXISTS attachment_removals (id TEXT PRIMARY KEY) WITHOUT ROWID")
            },
            Migrator.Migration(version: 9, name: "attachment claims") { db in
                // Ids the application added (`AttachmentStorage.recordClaim`): a feature that
                // stored the same content for itself never removes them (review 28b). Earlier
                // attachments are claimed unless the search index made them (its copies carry
                // `{"uid": …}` metadata, and nothing else has made such since the index began).
                try db.execute("CREATE TABLE IF NOT EXISTS attachment_claims (id TEXT PRIMARY KEY) WITHOUT ROWID")
                try db.execute(
                    """
                    INSERT OR IGNORE INTO attachment_claims (id)
                    SELECT id FROM attachments WHERE metadata NOT LIKE '{"uid":%'
                    """)
            },
        ])
}
