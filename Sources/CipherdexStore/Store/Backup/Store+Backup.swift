import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension Store {
    /// A backup progress handler: return false to cancel (the destination stays as it was).
    public typealias BackupProgressHandler = @Sendable (BackupProgress) -> Bool

    /// Writes a consistent copy of this open store to `destination`, a store that opens with
    /// `Store.open` and the same keys: the database as of one commit (copied page by page from a
    /// read transaction, so writers go on meanwhile), every attachment that commit references,
    /// and the metadata with the keyslots as they are when the backup starts.
    ///
    /// `destination` may be missing, an empty directory, or an earlier backup of this store:
    /// then only the attachments it lacks are copied (they are immutable files) and the database
    /// afresh. Anything else is refused (`BackupError`); so is a new destination whose name or
    /// path is too long for the folder the copy is built in beside it (`StoreError.invalidPath`,
    /// naming the limit). The copy is checked before it becomes the destination's content
    /// (database `quick_check`, every copied attachment authenticated) in one atomic step; a
    /// failure, a cancellation (`progress` returning false, or the task's) or a kill at any
    /// instant leaves the destination as it was or the complete new backup, and never changes
    /// this store.
    @discardableResult
    public func backup(to destination: String, progress: BackupProgressHandler? = nil) throws -> BackupSummary {
        try backup(to: destination, replacingAnotherStore: false, progress: progress, cancellation: nil)
    }

    /// The async form of `backup(to:progress:)`: runs on Cipherdex's own queue and stops at its
    /// next check (between pages steps and attachment pieces) when the task is cancelled,
    /// throwing `CancellationError` with the destination as it was.
    @discardableResult
    public func backupAsync(to destination: String, progress: BackupProgressHandler? = nil) async throws
        -> BackupSummary
    {
        try await BlockingWork.run { cancellation in
            try self.backup(
                to: destination, replacingAnotherStore: false, progress: progress, cancellation: cancellation)
        }
    }

    /// Restores the backup at `backup.path` (opened with its key) to `path`: the same copy a
    /// backup makes, from the backup. A store already at `path` is replaced only when
    /// `replacingExistingStore` (else `BackupError.destinationExists`); the replacement is one
    /// atomic switch, so a kill leaves the old store or the restored one, complete.
    @discardableResult
    public static func restore(
        _ backup: StoreConfiguration, to path: String, replacingExistingStore: Bool = false,
        progress: BackupProgressHandler? = nil
    ) throws -> BackupSummary {
        try restore(
            backup, to: path, replacingExistingStore: replacingExistingStore, progress: progress, cancellation: nil)
    }

    /// The async form of `restore(_:to:replacingExistingStore:progress:)`: opens the backup
    /// (the key provider and key derivation) and copies it on Cipherdex's own queue. A cancelled
    /// task stops at the copy's next check with `CancellationError`, `path` left as it was.
    @discardableResult
    public static func restoreAsync(
        _ backup: StoreConfiguration, to path: String, replacingExistingStore: Bool = false,
        progress: BackupProgressHandler? = nil
    ) async throws -> BackupSummary {
        try await BlockingWork.run { cancellation in
            try restore(
                backup, to: path, replacingExistingStore: replacingExistingStore, progress: progress,
                cancellation: cancellation)
        }
    }

    static func restore(
        _ backup: StoreConfiguration, to path: String, replacingExistingStore: Bool,
        progress: BackupProgressHandler?, cancellation: WorkCancellation?
    ) throws -> BackupSummary {
        if !replacingExistingStore && Store.isProvablyCipherdexStore(StoreLayout(directory: path))
            && !BackupDestination.holdsOnlyALockFile(path, names: (try? FileSystem.entries(of: path)) ?? [])
        {
            throw BackupError.destinationExists(path: path)
        }
        switch FileKind.of(path) {
        case .missing, .unknown(errno: ENAMETOOLONG):
            // Said before the backup is opened (its key asked for), as `prepare` would after.
            try BackupDestination.refuseTooLongForSibling(path)
        default:
            break
        }
        var configuration = backup
        configuration.createIfMissing = false
        let source = try openForReading(configuration)
        defer { source.close() }
        try cancellation?.check()
        do {
            return try source.backup(
                to: path, replacingAnotherStore: replacingExistingStore, progress: progress, cancellation: cancellation)
        } catch BackupError.destinationIsAnotherStore(let destination) where !replacingExistingStore {
            // A store made at `path` since the check above (another restore, a create): for a
            // restore any store there is one it may replace only when told to.
            throw BackupError.destinationExists(path: destination)
        }
    }

    /// The backup; `faultPoint` is a test hook that may throw `InjectedFault` to leave things as
    /// a kill would.
    func backup(
        to destinationPath: String, replacingAnotherStore: Bool, progress: BackupProgressHandler?,
        cancellation: WorkCancellation?, faultPoint: (BackupStep) throws -> Void = { _ in }
    ) throws -> BackupSummary {
        try refuseInsideTransaction("backup")
        guard isOpen else { throw StoreError.closed }
        let source = metadata.withLock { $0 }
        if FileSystem.isWithin(destinationPath, layout.directory)
            || FileSystem.isWithin(layout.directory, destinationPath)
        {
            throw BackupError.destinationOverlapsStore(path: destinationPath, store: layout.directory)
        }
        let destination = try BackupDestination.prepare(
            path: destinationPath, source: source, dataKey: dataKey, replacing: replacingAnotherStore)
        let metadataGeneration = max(source.generation, destination.previousMetadataGeneration) + 1
        do {
            let run = BackupRun(store: self, destination: destination, progress: progress, cancellation: cancellation)
            backupHolds.begin()
            let summary: BackupSummary
            do {
                defer {
                    let storage = attachmentStorage
                    for id in backupHolds.end() { storage.unlinkRemoved(id) }
                }
                summary = try Store.mappingDatabaseErrors {
                    try pool.read { reader in try run.copy(from: reader, faultPoint: faultPoint) }
                }
            }
            try run.report(.switching)
            var updated = source
            updated.dataGeneration = destination.target.generation == 0 ? nil : destination.target.generation
            updated.generation = metadataGeneration
            let bytes = try updated.seal(dataKey: dataKey)
            try destination.commit(bytes, faultPoint: faultPoint)
            return summary
        } catch {
            let switched =
                error is BackupError
                ? false : destination.switched(toMetadataGeneration: metadataGeneration, storeID: source.storeID)
            if error is InjectedFault {
                destination.lock.release()
            } else if switched == nil {
                // Whether the switch happened cannot be told (its metadata unreadable: out of
                // descriptors): nothing is removed; the destination's next open, or the next
                // backup, sorts its generations out from metadata it can read.
                destination.lock.release()
            } else if switched == true {
                // The rename happened and what followed it (a folder's fsync) failed: the copy is
                // the destination's content, and what the previous content left is removed by
                // its next open.
                destination.lock.release()
                throw StoreError.notDurable(error, path: destinationPath, change: "the copy is complete and in place")
            } else {
                destination.discard()
            }
            throw error
        }
    }

    /// Opens the backup a restore reads: read-only, so that it stays as it is (a writable open
    /// gave an older build's backup its `store.id` row). An older build's backup is copied as it
    /// is, its pages unchanged, and the restored store migrates at its first writable open: the
    /// backup is never migrated in place (nor refused on read-only media). Opened writable only
    /// when a read-only open cannot serve (a crash left writes in its log, a creation half
    /// done), as any open of it would. The key provider is asked once.
    private static func openForReading(_ configuration: StoreConfiguration) throws -> Store {
        var readOnly = configuration
        readOnly.readOnly = true
        readOnly.readsPendingMigrationsAsIs = true
        let given = Mutex<EncryptionKey?>(nil)
        if let provider = configuration.keyProvider {
            let once: KeyProvider = {
                if let key = given.withLock({ $0 }) { return key }
                let key = try provider()
                given.withLock { $0 = key }
                return key
            }
            readOnly.keyProvider = once
        }
        // The writable fallback below opens again: the data key the first open unwrapped is
        // kept for it (in secure memory, released with this configuration), so a passphrase's
        // Argon2id runs once.
        readOnly.unwrappedKeyMemo = UnwrappedKeyMemo()
        do {
            return try Store.open(readOnly)
        } catch StoreError.permissionDenied {
            var writable = readOnly
            writable.readOnly = false
            writable.readsPendingMigrationsAsIs = false
            return try Store.open(writable)
        }
    }
}
