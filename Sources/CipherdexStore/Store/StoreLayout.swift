/// The files of a store directory. Every name a store owns is listed here, so deleting a store
/// removes exactly these.
struct StoreLayout: Sendable {
    /// The store directory.
    let directory: String

    var metadata: String { directory + "/" + StoreMetadata.fileName }
    /// Left by `Store.delete` after its first atomic step; means "being deleted".
    var deletionTombstone: String { metadata + ".deleted" }
    var database: String { directory + "/store.db" }
    var databaseWAL: String { database + "-wal" }
    var databaseSHM: String { database + "-shm" }
    var databaseJournal: String { database + "-journal" }
    /// A database still being created; renamed to `database` as the last step of creation.
    var creatingDatabase: String { database + ".creating" }
    var lockFile: String { directory + "/cipherdex.lock" }
    var attachments: String { directory + "/attachments" }
    var staging: String { directory + "/staging" }

    /// Names (not paths) that belong to a store; used to decide whether a directory is empty of
    /// stores and what to delete.
    static let ownedNames: Set<String> = [
        StoreMetadata.fileName, StoreMetadata.fileName + ".deleted", "store.db", "store.db-wal", "store.db-shm",
        "store.db-journal", "store.db.creating", "store.db.creating-journal", "store.db.creating-wal",
        "store.db.creating-shm", "cipherdex.lock", "attachments", "staging",
    ]

    /// Whether `name` is a store file or a temporary file of an atomic metadata write.
    static func isOwned(_ name: String) -> Bool {
        ownedNames.contains(name) || name.hasPrefix(StoreMetadata.fileName + ".tmp-")
    }
}
