extension StoreConfiguration {
    /// The store's own feature followed by the configured ones.
    var allFeatures: [StoreFeature] { [Store.coreFeature] + features }

    /// Every migration of every feature, in version order.
    var migrator: Migrator { Migrator(migrations: allFeatures.flatMap(\.migrations)) }

    /// Prepares a newly opened connection for every feature.
    func configureConnection(_ connection: Connection) throws {
        for feature in allFeatures { try feature.configureConnection(connection) }
    }

    /// Throws `unsupportedScheme` when the database records a migration this build does not
    /// know in a version range one of its features reserves (a newer build wrote it).
    /// Migrations of features this build does not include are left alone.
    func checkSupported(recordedVersions: Set<Int>) throws {
        for feature in allFeatures {
            let known = Set(feature.migrations.map(\.version))
            let unknown = recordedVersions.filter { feature.reserves($0) && !known.contains($0) }
            if let newest = unknown.max() {
                throw EncryptionError.unsupportedScheme(found: newest, supported: feature.latestVersion)
            }
        }
    }

    /// The recorded migrations that belong to none of the configured features: tables of a
    /// feature this program does not include (search, for a store-only program).
    func foreignVersions(in recordedVersions: Set<Int>) -> [Int] {
        recordedVersions.filter { version in !allFeatures.contains { $0.reserves(version) } }.sorted()
    }
}
