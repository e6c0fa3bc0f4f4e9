/// A layer above the store that keeps tables in the store's database (full-text search is
/// one): its schema migrations and what every connection needs for them. The store never names
/// a feature; whoever opens it passes the features in (`Store.open(_:features:)`), and the
/// store runs their migrations with its own, after the key and the database are verified, in
/// the open's one transaction, and configures every connection it opens (the creating one, the
/// writer and each reader) with each feature's hook.
///
/// Migration versions are one sequence shared by every feature, recorded in `cipherdex_schema`
/// (one row per applied migration, so each feature's record is exact). Each feature reserves
/// the versions it may ever use, so a build that lacks a feature can tell a migration of that
/// feature (left alone: its tables are never touched) from a newer one of its own
/// (`unsupportedScheme`).
package struct StoreFeature: Sendable {
    /// A stable name (`store`, `search`).
    package let identifier: String
    /// Every version this feature uses or may use in the future.
    package let reservedVersions: [ClosedRange<Int>]
    /// The feature's migrations; each version must lie in `reservedVersions`.
    package let migrations: [Migrator.Migration]
    /// Run on every connection of the store right after it opens, before any statement touches
    /// the feature's tables (registers FTS tokenizers, SQL functions).
    package let configureConnection: @Sendable (Connection) throws -> Void
    /// The attachment ids the feature's tables hold (kept by `collectUnreferencedAttachments`).
    package let heldAttachments: @Sendable (Connection) throws -> [String]
    /// Run by a conversion (`encrypt`, `reencrypt`, `decrypt`) on the new generation's database
    /// before the switch: the deduplication key changed, and whatever the feature keyed with it
    /// is keyed again (see `ContentKeyChange`).
    package let contentKeyChanged: @Sendable (ContentKeyChange) throws -> Void

    /// A feature; `migrations` must lie in `reservedVersions`.
    package init(
        identifier: String, reservedVersions: [ClosedRange<Int>], migrations: [Migrator.Migration],
        configureConnection: @escaping @Sendable (Connection) throws -> Void = { _ in },
        heldAttachments: @escaping @Sendable (Connection) throws -> [String] = { _ in [] },
        contentKeyChanged: @escaping @Sendable (ContentKeyChange) throws -> Void = { _ in }
    ) {
        precondition(
            migrations.allSatisfy { migration in reservedVersions.contains { $0.contains(migration.version) } },
            "a feature's migrations must lie in its reserved versions")
        self.identifier = identifier
        self.reservedVersions = reservedVersions
        self.migrations = migrations
        self.configureConnection = configureConnection
        self.heldAttachments = heldAttachments
        self.contentKeyChanged = contentKeyChanged
    }

    /// Whether `version` belongs to this feature.
    package func reserves(_ version: Int) -> Bool {
        reservedVersions.contains { $0.contains(version) }
    }

    /// The newest version of this feature this build knows (0 when it has none).
    package var latestVersion: Int { migrations.map(\.version).max() ?? 0 }
}
