/// The files of a store directory. Every name a store owns is listed here, so deleting a store
/// removes exactly these.
///
/// The database and the attachments belong to a **generation**: generation 0 is `store.db` and
/// `attachments/`, generation N ≥ 1 is `store.N.db` and `attachments.N/`. Re-encryption and
/// conversion write a new generation beside the current one and switch to it in one atomic
/// metadata update (`StoreMetadata.dataGeneration`); files of any other generation are then
/// provably unneeded.
struct StoreLayout: Sendable {
    /// The store directory.
    let directory: String
    /// The generation of the database and attachments these paths name.
    let generation: Int

    init(directory: String, generation: Int = 0) {
        self.directory = directory
        self.generation = generation
    }

    /// The same directory's paths for another generation.
    func withGeneration(_ generation: Int) -> StoreLayout {
        StoreLayout(directory: directory, generation: generation)
    }

    var metadata: String { directory + "/" + StoreMetadata.fileName }
    /// Left by `Store.delete` after its first atomic step; means "being deleted".
    var deletionTombstone: String { metadata + ".deleted" }
    var database: String { directory + "/" + Self.databaseName(generation: generation) }
    var databaseWAL: String { database + "-wal" }
    var databaseSHM: String { database + "-shm" }
    var databaseJournal: String { database + "-journal" }
    /// A database still being created; renamed to `database` (generation 0) as the last step of
    /// creation.
    var creatingDatabase: String { directory + "/store.db.creating" }
    var lockFile: String { directory + "/cipherdex.lock" }
    var attachments: String { directory + "/" + Self.attachmentsName(generation: generation) }
    var staging: String { directory + "/staging" }

    /// `store.db` for generation 0, `store.N.db` for N.
    static func databaseName(generation: Int) -> String {
        generation == 0 ? "store.db" : "store.\(generation).db"
    }

    /// `attachments` for generation 0, `attachments.N` for N.
    static func attachmentsName(generation: Int) -> String {
        generation == 0 ? "attachments" : "attachments.\(generation)"
    }

    /// Names (not paths) that belong to a store; used to decide whether a directory is empty of
    /// stores and what to delete.
    static let ownedNames: Set<String> = [
        StoreMetadata.fileName, StoreMetadata.fileName + ".deleted", "store.db", "store.db-wal", "store.db-shm",
        "store.db-journal", "store.db.creating", "store.db.creating-journal", "store.db.creating-wal",
        "store.db.creating-shm", "cipherdex.lock", "attachments", "staging",
    ]

    /// Whether `name` is a store file or a temporary file of an atomic metadata write.
    static func isOwned(_ name: String) -> Bool {
        ownedNames.contains(name) || name.hasPrefix(StoreMetadata.fileName + ".tmp-") || generation(of: name) != nil
    }

    /// The generation N ≥ 1 a name of the form `store.N.db`, `store.N.db-wal|-shm|-journal` or
    /// `attachments.N` belongs to (N written without leading zeros); nil for any other name.
    static func generation(of name: String) -> Int? {
        func number(_ text: Substring) -> Int? {
            guard !text.isEmpty, text.count <= 9, text.first != "0", text.allSatisfy({ $0.isASCII && $0.isNumber })
            else { return nil }
            return Int(text)
        }
        if name.hasPrefix("attachments.") { return number(name.dropFirst("attachments.".count)) }
        guard name.hasPrefix("store.") else { return nil }
        var rest = name.dropFirst("store.".count)
        for suffix in ["-wal", "-shm", "-journal"] where rest.hasSuffix(suffix) {
            rest = rest.dropLast(suffix.count)
            break
        }
        guard rest.hasSuffix(".db") else { return nil }
        return number(rest.dropLast(".db".count))
    }
}
