/// Ordered schema migrations, recorded in the store's own `cipherdex_schema` table (one row per
/// applied migration) so each runs exactly once, in a transaction with its record.
///
/// A migration runs when its version is not recorded, so a feature added to an existing store
/// (search on a store created without it) gets its migrations then, even though the store's
/// later ones were applied long before.
package struct Migrator: Sendable {
    /// A named migration.
    package struct Migration: Sendable {
        /// Version number, unique across every feature; migrations run in ascending order.
        package let version: Int
        /// What it does, for the record.
        package let name: String
        /// The change itself.
        package let apply: @Sendable (Connection) throws -> Void

        /// A migration.
        package init(version: Int, name: String, _ apply: @escaping @Sendable (Connection) throws -> Void) {
            self.version = version
            self.name = name
            self.apply = apply
        }
    }

    /// The migrations, in ascending version order.
    package let migrations: [Migration]

    /// The migrations of every feature of a store; versions must be distinct.
    init(migrations: [Migration]) {
        let sorted = migrations.sorted { $0.version < $1.version }
        precondition(
            zip(sorted, sorted.dropFirst()).allSatisfy { $0.version < $1.version }, "migration versions must differ")
        self.migrations = sorted
    }

    /// The newest version this build knows.
    package var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The newest version the database records (0 for a new database).
    static func currentVersion(of connection: Connection) throws -> Int {
        try recordedVersions(of: connection).max() ?? 0
    }

    /// Every version the database records as applied (none for a new database).
    static func recordedVersions(of connection: Connection) throws -> Set<Int> {
        let exists = try connection.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'cipherdex_schema'")
        guard exists?.integerValue == 1 else { return [] }
        return Set(
            try connection.rows("SELECT version FROM cipherdex_schema").compactMap { $0.first?.integerValue }.map {
                Int($0)
            })
    }

    /// Applies every migration the database does not record, in version order, in one
    /// transaction, and then `alsoInTransaction` in the same one (a failure rolls back all).
    func migrate(_ connection: Connection, alsoInTransaction: (Connection) throws -> Void = { _ in }) throws {
        try connection.transaction {
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS cipherdex_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            let recorded = try Self.recordedVersions(of: connection)
            for migration in migrations where !recorded.contains(migration.version) {
                try migration.apply(connection)
                try connection.execute(
                    "INSERT INTO cipherdex_schema (version, name) VALUES (?, ?)",
                    [.int(migration.version), .text(migration.name)])
            }
            try alsoInTransaction(connection)
        }
    }
}
