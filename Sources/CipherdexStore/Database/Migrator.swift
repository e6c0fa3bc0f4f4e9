/// Ordered schema migrations, recorded in the store's own `cipherdex_schema` table so each runs
/// exactly once, in a transaction with its record.
struct Migrator: Sendable {
    /// A named migration.
    struct Migration: Sendable {
        /// Version number; migrations run in ascending order.
        let version: Int
        /// What it does, for the record.
        let name: String
        /// The change itself.
        let apply: @Sendable (Connection) throws -> Void
    }

    private(set) var migrations: [Migration] = []

    /// Adds a migration; versions must increase.
    mutating func register(version: Int, name: String, _ apply: @escaping @Sendable (Connection) throws -> Void) {
        precondition(migrations.last.map { $0.version < version } ?? true, "migration versions must increase")
        migrations.append(Migration(version: version, name: name, apply: apply))
    }

    /// The newest version this build knows.
    var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The version the database is at (0 for a new database).
    static func currentVersion(of connection: Connection) throws -> Int {
        let exists = try connection.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'cipherdex_schema'")
        guard exists?.integerValue == 1 else { return 0 }
        return Int(try connection.scalar("SELECT max(version) FROM cipherdex_schema")?.integerValue ?? 0)
    }

    /// Applies every migration newer than the database's version.
    func migrate(_ connection: Connection) throws {
        try connection.transaction {
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS cipherdex_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            let current = try Self.currentVersion(of: connection)
            for migration in migrations where migration.version > current {
                try migration.apply(connection)
                try connection.execute(
                    "INSERT INTO cipherdex_schema (version, name) VALUES (?, ?)",
                    [.int(migration.version), .text(migration.name)])
            }
        }
    }
}
