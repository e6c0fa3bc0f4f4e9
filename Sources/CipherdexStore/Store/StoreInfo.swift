import Foundation

/// A description of a store: what `cipherdex info` prints. Contains no key material.
public struct StoreInfo: Codable, Equatable, Sendable {
    /// One keyslot, without its wrapped key.
    public struct KeyslotInfo: Codable, Equatable, Sendable {
        /// Slot number.
        public var id: Int
        /// `raw` or `passphrase`.
        public var kind: String
        /// Argon2id passes (passphrase slots).
        public var opsLimit: UInt64?
        /// Argon2id memory in bytes (passphrase slots).
        public var memLimit: Int?
        /// The label given when the slot was added (`recovery` for a recovery key).
        public var label: String?
        /// When the slot was added (absent for slots of stores made before labels existed).
        public var createdAt: Date?
    }

    /// The store's directory.
    public var path: String
    /// Whether the store is encrypted.
    public var encrypted: Bool
    /// The metadata format/scheme version.
    public var formatVersion: Int
    /// The database schema version.
    public var schemaVersion: Int
    /// The store's random identifier.
    public var storeID: String
    /// Metadata generation (incremented by each key rotation).
    public var generation: Int
    /// SQLCipher settings (encrypted stores).
    public var cipher: CipherSettings?
    /// The keyslots.
    public var keyslots: [KeyslotInfo]
    /// Size of the database file in bytes.
    public var databaseBytes: UInt64
    /// Size of the write-ahead log in bytes.
    public var walBytes: UInt64
    /// Number of attachment files (files named as attachments; anything else in the folder is
    /// not counted).
    public var attachmentCount: Int
    /// Total size of attachment files in bytes.
    public var attachmentBytes: UInt64
    /// The SQLite version of the linked SQLCipher.
    public var sqliteVersion: String
}

extension Store {
    /// Describes the store.
    public func info() throws -> StoreInfo {
        let schemaVersion = try Store.mappingDatabaseErrors { try read { try Migrator.currentVersion(of: $0) } }
        let snapshot = metadata.withLock { $0 }
        var attachmentCount = 0
        var attachmentBytes: UInt64 = 0
        // Files named as attachments: anything else put in the folder is not one.
        for name in FileSystem.contents(of: layout.attachments) where AttachmentStorage.isValidID(name) {
            attachmentCount += 1
            attachmentBytes += FileSystem.size(layout.attachments + "/" + name) ?? 0
        }
        return StoreInfo(
            path: path, encrypted: snapshot.encrypted, formatVersion: snapshot.formatVersion,
            schemaVersion: schemaVersion, storeID: snapshot.storeID, generation: snapshot.generation,
            cipher: snapshot.cipher,
            keyslots: snapshot.keyslots.map(StoreInfo.KeyslotInfo.init),
            databaseBytes: FileSystem.size(layout.database) ?? 0, walBytes: FileSystem.size(layout.databaseWAL) ?? 0,
            attachmentCount: attachmentCount, attachmentBytes: attachmentBytes, sqliteVersion: Connection.sqliteVersion)
    }
}
