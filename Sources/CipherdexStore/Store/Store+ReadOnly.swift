import Foundation

/// A store opened read-only (`StoreConfiguration.readOnly`, or found on a file system mounted
/// read-only): what such an open requires, and the refusal of every write.
extension Store {
    /// Whether the store was opened read-only: every write throws `StoreError.permissionDenied`.
    public var isReadOnly: Bool { configuration.readOnly }

    /// Throws `permissionDenied` naming the store when it was opened read-only.
    package func refuseWhenReadOnly() throws {
        guard isReadOnly else { return }
        throw StoreError.permissionDenied(path: path, reason: Self.readOnlyReason(path))
    }

    /// Why a read-only store refuses a write.
    static func readOnlyReason(_ path: String) -> String {
        FileSystem.isOnReadOnlyFileSystem(path)
            ? "the store is on a read-only file system and was opened read-only; nothing can be written"
            : "the store was opened read-only; nothing can be written"
    }

    /// What a read-only open of a folder without metadata says: it creates nothing, and finishes
    /// no interrupted deletion.
    static func readOnlyFindsNoStore(_ layout: StoreLayout) -> Error {
        if FileSystem.exists(layout.deletionTombstone) {
            return StoreError.permissionDenied(
                path: layout.directory,
                reason: "a deletion of this store was interrupted; a writable open or delete finishes it")
        }
        return StoreError.notAStore(
            path: layout.directory, reason: "no store in this directory (a read-only open creates none)")
    }

    /// Refuses a read-only open of a store whose last writable open did not end cleanly: reading
    /// it would need writes first (a crash-left log's transactions, a creation to finish).
    static func checkReadOnlyOpen(layout: StoreLayout, finishCreation: Bool) throws {
        let needsRecovery = { (what: String) in
            StoreError.permissionDenied(
                path: layout.directory,
                reason: "\(what); open it writable once (or copy it to writable storage) before opening it read-only")
        }
        if finishCreation { throw needsRecovery("its creation was interrupted") }
        if (FileKind.of(layout.databaseWAL).size ?? 0) > 0 {
            throw needsRecovery("a crash left writes in its write-ahead log")
        }
        if (FileKind.of(layout.databaseJournal).size ?? 0) > 0 {
            throw needsRecovery("a crash left a rollback journal")
        }
    }

    /// Refuses a read-only open of a store that a writable open would migrate (made by an older
    /// build): its schema is not this build's until it is.
    static func checkNoMigrationPending(layout: StoreLayout, configuration: StoreConfiguration, recorded: Set<Int>)
        throws
    {
        let pending = configuration.migrator.migrations.filter { !recorded.contains($0.version) }
        guard pending.isEmpty else {
            throw StoreError.permissionDenied(
                path: layout.directory,
                reason: "it was written by an older build and needs \(pending.count) migration(s); "
                    + "open it writable once (or restore it to writable storage) before opening it read-only")
        }
    }
}
