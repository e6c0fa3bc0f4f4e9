import Foundation
import Synchronization

/// An embedded store whose every persisted byte is encrypted with a key the application supplies
/// (or, when no key is configured, an unencrypted store of the same layout).
///
/// Open one with `Store.open(_:)` (synchronous code) or `Store.openAsync(_:)` (async code). A failed open throws `EncryptionError` or `StoreError` and
/// leaves every file of the store byte-for-byte unchanged: the key is checked against the
/// keyslots, and the database against the data key with a read-only immutable connection, before
/// anything opens the database for writing.
public final class Store: Sendable {
    /// The store's directory.
    public let path: String
    /// Whether the store is encrypted.
    public var isEncrypted: Bool { metadata.withLock { $0.encrypted } }

    let layout: StoreLayout
    /// The current generation's database file (for messages of the features above the store).
    package var databasePath: String { layout.database }
    let configuration: StoreConfiguration
    /// The data key, in secure memory while the store is open (nil when unencrypted).
    let dataKey: SecureBytes?
    /// The database connections.
    let pool: DatabasePool
    /// The store's metadata as last written (replaced by key changes, under this mutex).
    let metadata: Mutex<StoreMetadata>
    /// Serializes metadata updates (key changes), held across Argon2id and the atomic write;
    /// `metadata` itself is locked only to read and to swap it. `close()` waits for it.
    let keyChange = KeyChangeLock()
    /// Document change subscribers and the running document transaction.
    let changeObservers = ChangeObservers()
    /// The backups running on this store (removed attachments' files wait for them).
    let backupHolds = BackupHolds()
    /// Removed attachments whose files are gone, for the next removal to forget.
    let finishedRemovals = FinishedRemovals()
    /// The serial queue on which the async forms of writes run (GRDB's writer queue), so that
    /// waiting for the writer never blocks a thread of Swift's cooperative pool.
    package let writerQueue = DispatchQueue(label: "cipherdex.store.writer", qos: .userInitiated)
    /// What opening and closing change: the held lock (nil once closed), what features keep per
    /// open store (the search library, by feature identifier), and the keyslot the key given to
    /// `open` unwrapped (nil when unencrypted; what `rotateKey` replaces).
    struct Lifecycle {
        var lock: StoreLock?
        var featureStates: [String: any StoreFeatureState] = [:]
        var openedKeyslotID: Int?
    }

    let lifecycle: Mutex<Lifecycle>

    /// The state the feature `identifier` keeps for this store, made by `make` on first use (the
    /// search library is `featureState("search") { SearchLibrary(store: $0) }`).
    package func featureState<State: StoreFeatureState>(_ identifier: String, make: (Store) -> State) -> State {
        lifecycle.withLock { lifecycle in
            if let state = lifecycle.featureStates[identifier] as? State { return state }
            let state = make(self)
            lifecycle.featureStates[identifier] = state
            return state
        }
    }

    init(
        layout: StoreLayout, configuration: StoreConfiguration, metadata: StoreMetadata, dataKey: SecureBytes?,
        pool: DatabasePool, lock: StoreLock
    ) {
        self.path = layout.directory
        self.layout = layout
        self.configuration = configuration
        self.metadata = Mutex(metadata)
        self.dataKey = dataKey
        self.pool = pool
        self.lifecycle = Mutex(Lifecycle(lock: lock))
    }

    deinit {
        close()
    }

    /// Opens the store at `configuration.path`, creating it when the path does not exist or is an
    /// empty directory (encrypted when a key provider is configured).
    ///
    /// Store only: the tables of features above the store (a search index) are left alone.
    /// Disfavoured so that, where `Cipherdex` is imported too, its `Store.open` (with search) is
    /// the one called.
    @_disfavoredOverload
    public static func open(_ configuration: StoreConfiguration) throws -> Store {
        try open(configuration, cancellation: nil)
    }

    /// One attempt of `open(_:cancellation:)`: `FolderReplaced` when its folder was replaced.
    static func openOnce(_ configuration: StoreConfiguration, cancellation: WorkCancellation?) throws -> Store {
        DispatchReadiness.ensure()
        try configuration.validate()
        var configuration = configuration
        let layout = StoreLayout(directory: configuration.path)
        // A folder that cannot even be looked at (a failing disk, no permission on a parent) is
        // said so, not taken for a missing folder or a file.
        var folder = stat()
        if stat(layout.directory, &folder) != 0, errno != ENOENT, errno != ENOTDIR {
            if errno == ELOOP {
                throw StoreError.invalidPath(path: layout.directory, reason: "its symbolic links form a loop")
            }
            if errno == ENAMETOOLONG {
                throw StoreError.invalidPath(path: layout.directory, reason: "it is longer than the system allows")
            }
            throw StoreError.classifying(SystemError(operation: "stat", path: layout.directory, errno: errno))
        }
        if !FileSystem.exists(layout.directory) {
            guard configuration.createIfMissing, !configuration.readOnly else {
                throw StoreError.notAStore(path: layout.directory, reason: "no such directory")
            }
            try checkParentFolder(of: layout)
            try refuseInsideAnotherStoresFolder(layout.directory)
            return try create(layout: layout, configuration: configuration)
        }
        guard FileSystem.isDirectory(layout.directory) else {
            // A link to nothing exists (`lstat`) but leads nowhere: said as such, not "not a
            // directory" (file-system audit 7a).
            let reason =
                FileKind.of(layout.directory) == .symbolicLink && !FileSystem.followedExists(layout.directory)
                ? "it is a symbolic link to \(FileSystem.linkTarget(layout.directory) ?? "?"), which does not exist"
                : "not a directory"
            throw StoreError.notAStore(path: layout.directory, reason: reason)
        }
        // A folder this process may not read or search: say so, naming it (not "no store").
        try checkAccess(layout.directory, mode: R_OK | X_OK)
        // A store on a file system mounted read-only (a backup on write-protected media) opens
        // read-only rather than not at all (and what is wrong with one is said as for any store).
        if FileSystem.isOnReadOnlyFileSystem(layout.directory) {
            configuration.readOnly = true
        }
        let lock = try StoreLock(layout: layout, readOnly: configuration.readOnly)
        guard lock.holdsDirectory(at: layout.directory, followingLinks: true) else { throw FolderReplaced() }
        let metadataKind = FileKind.of(layout.metadata)
        if metadataKind.exists {
            if configuration.requiresNewStore { throw StoreAlreadyExists(path: layout.directory) }
            guard metadataKind.isRegular else {
                throw EncryptionError.metadataCorrupt(
                    reason: "\(layout.metadata) is \(metadataKind.description), not a regular file")
            }
            return try openExisting(
                layout: layout, configuration: configuration, lock: lock, cancellation: cancellation)
        }
        if configuration.readOnly { throw readOnlyFindsNoStore(layout) }
        if FileSystem.exists(layout.deletionTombstone) {
            // A delete was interrupted after its first step: the store is gone; an open that may
            // create one finishes the job (any other fails and changes nothing).
            guard configuration.createIfMissing else {
                throw StoreError.notAStore(
                    path: layout.directory, reason: "its deletion was interrupted (delete it again, or create a store)")
            }
            try checkAccess(layout.directory, mode: W_OK | X_OK)
            try wrapSystem { try removeStoreFiles(layout: layout) }
        } else if FileSystem.contents(of: layout.directory).contains(where: Store.isDatabaseOfAnyGeneration) {
            throw EncryptionError.metadataCorrupt(reason: "the metadata file is missing but the database exists")
        }
        try checkEmptyOrOurLeftovers(layout)
        guard configuration.createIfMissing else {
            throw StoreError.notAStore(path: layout.directory, reason: "no store in this directory")
        }
        try refuseInsideAnotherStoresFolder(layout.directory)
        return try create(layout: layout, configuration: configuration, lock: lock)
    }

    /// Whether a store (possibly a damaged one) exists at `path`.
    public static func exists(at path: String) -> Bool {
        let layout = StoreLayout(directory: path)
        // A deletion's tombstone says the store is gone (the next open finishes removing it).
        if FileSystem.exists(layout.deletionTombstone) && !FileSystem.exists(layout.metadata) { return false }
        return FileSystem.exists(layout.metadata)
            || FileSystem.contents(of: layout.directory).contains(where: Store.isDatabaseOfAnyGeneration)
    }

    /// Closes the store: finishes work queued with its features (the search library's queued
    /// documents), waits for running work (a key change included), checkpoints the WAL, releases
    /// the lock. Further
    /// calls throw `StoreError.closed`. Called inside `transaction(_:)` on its thread, it returns
    /// at once and the store closes when that transaction has ended (committed or rolled back).
    public func close() {
        close(beforeReleasingLock: {})
    }

    /// `close()`, running `body` once every connection is closed and before the lock goes (the
    /// last step of a re-encryption removes the old generation there). Features first finish
    /// what was queued with them while the store is still open (the search library's queued
    /// documents), unless `finishingQueuedWork` is false (the store is being deleted).
    func close(finishingQueuedWork: Bool = true, beforeReleasingLock body: @escaping () -> Void) {
        if changeObservers.deferCloseIfInTransaction() { return }
        // Not inside a read on this thread: the work may need a reader this thread holds.
        if finishingQueuedWork && !pool.holdsReaderOrWriter {
            let open = lifecycle.withLock { state in state.lock == nil ? [] : Array(state.featureStates.values) }
            for state in open { state.finishQueuedWork() }
        }
        // A key change running meanwhile writes the metadata before the lock goes, never after
        // (another instance could have opened the store and would write its stale copy back).
        let (held, states) = keyChange.afterRunningChange {
            lifecycle.withLock { state in
                defer { state.lock = nil }
                return (state.lock, Array(state.featureStates.values))
            }
        }
        guard let held else { return }
        for state in states { state.storeWillClose() }
        // The flock goes only once SQLite has closed every connection: another process that
        // takes the lock must never find a connection of this one still holding the database.
        pool.close(then: {
            body()
            held.release()
        })
        // Every write has ended (closing took the writer): end every `changes()` stream.
        changeObservers.finishAll()
    }

    /// Refuses to create a store in a folder holding anything that is not provably ours: a create
    /// makes its lock file before anything else, so what a killed create (or an interrupted
    /// delete) left comes with it; the half-built database (`store.db.creating…`) and metadata
    /// (`metadata.json.tmp-…`) are ours by their names alone. Names any program might use
    /// (`attachments/`, `staging/`) without the lock file are someone else's files, never adopted
    /// or removed. A folder that cannot be listed is an error, never taken for an empty one.
    static func checkEmptyOrOurLeftovers(_ layout: StoreLayout) throws {
        let entries = try wrapSystem { try FileSystem.entries(of: layout.directory) }
        guard !entries.isEmpty else { return }
        let creatingName = String(layout.creatingDatabase.dropFirst(layout.directory.count + 1))
        let onlyHalfBuiltStore = entries.allSatisfy {
            $0.hasPrefix(creatingName) || $0.hasPrefix(StoreMetadata.fileName + ".tmp-")
        }
        guard entries.allSatisfy(StoreLayout.isOwned),
            FileKind.of(layout.lockFile).isRegular || onlyHalfBuiltStore
        else {
            throw StoreError.notAStore(
                path: layout.directory, reason: "the directory is not empty and holds no Cipherdex store")
        }
    }

    /// Whether the store is open.
    public var isOpen: Bool { lifecycle.withLock { $0.lock != nil } }

    private static func openExisting(
        layout: StoreLayout, configuration: StoreConfiguration, lock: StoreLock, cancellation: WorkCancellation?
    ) throws -> Store {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readRegularFile(layout.metadata, limit: StoreMetadata.maximumFileSize)
        } catch let error as SystemError {
            // No permission, a failing disk, too many open files or too little memory is not
            // damage: the metadata may be fine. Only what stays untyped may be the file's fault.
            let typed = StoreError.classifying(error)
            guard case .system = typed else { throw typed }
            throw EncryptionError.metadataCorrupt(
                reason: "the metadata file cannot be read: \(error.errorDescription ?? "unreadable")")
        } catch let error as RegularFileError {
            throw EncryptionError.metadataCorrupt(reason: "the metadata file cannot be read: \(error.reason)")
        }
        let metadata = try StoreMetadata.parse(bytes)
        // The metadata names the current generation of the database and attachments.
        let layout = layout.withGeneration(metadata.currentDataGeneration)
        var dataKey: SecureBytes?
        var slotID: Int?
        if metadata.encrypted {
            guard let provider = configuration.keyProvider else { throw EncryptionError.keyRequired }
            func unwrapKey() throws -> (dataKey: SecureBytes, slotID: Int) {
                try UnwrappedKeyMemo.unwrap(metadata, keeping: configuration.unwrappedKeyMemo) {
                    let unwrapped = try unwrapDataKey(metadata: metadata, key: try provider())
                    try metadata.verifyMAC(dataKey: unwrapped.dataKey)
                    return unwrapped
                }
            }
            // The key provider and its derivation cannot be interrupted. A cancelled async open
            // stops right after them, before anything opens the database, so it lets go of the
            // lock as soon as it is cancelled (and asks for no key if cancelled before).
            let unwrapped = try cancellation?.running(unwrapKey, onCancel: { lock.release() }) ?? unwrapKey()
            dataKey = unwrapped.dataKey
            slotID = unwrapped.slotID
        } else if configuration.keyProvider != nil {
            throw EncryptionError.keyUnexpected
        }
        let store = try openDatabase(
            layout: layout, configuration: configuration, metadata: metadata, dataKey: dataKey, lock: lock)
        store.lifecycle.withLock { $0.openedKeyslotID = slotID }
        return store
    }

    /// Verifies the database with the data key without writing anything, then opens it for real.
    static func openDatabase(
        layout: StoreLayout, configuration: StoreConfiguration, metadata: StoreMetadata, dataKey: SecureBytes?,
        lock: StoreLock
    ) throws -> Store {
        let finishCreation =
            layout.generation == 0 && !FileSystem.exists(layout.database) && FileSystem.exists(layout.creatingDatabase)
        let databasePath = finishCreation ? layout.creatingDatabase : layout.database
        let readOnly = configuration.readOnly
        if readOnly { try checkReadOnlyOpen(layout: layout, finishCreation: finishCreation) }
        try checkDatabaseFiles(
            databasePath: databasePath, layout: layout, pageSize: (metadata.cipher ?? .default).pageSize,
            writable: !readOnly)
        // One literal `x'<hex>'` for every connection of this store, built once in secure memory.
        let databaseKey = dataKey?.sqlcipherRawKeyLiteral()
        let recordedVersions: Set<Int>
        let recordsStoreID: Bool
        do {
            (recordedVersions, recordsStoreID) = try verifiedSchemaVersions(
                databasePath: databasePath, key: databaseKey, cipher: metadata.cipher, storeID: metadata.storeID,
                check: { try checkRecorded($0, configuration: configuration) })
        } catch let error as DatabaseError {
            throw openFailure(error, encrypted: metadata.encrypted, databasePath: databasePath)
        } catch let error as SystemError {
            throw StoreError.classifying(error)
        }
        if readOnly && !configuration.readsPendingMigrationsAsIs {
            try checkNoMigrationPending(layout: layout, configuration: configuration, recorded: recordedVersions)
        }
        // The key and the database are verified: from here on the store may be written.
        if finishCreation {
            try wrapSystem {
                try FileSystem.rename(layout.creatingDatabase, to: layout.database)
                try FileSystem.syncDirectory(layout.directory)
            }
        }
        // A failed open must leave no -wal or -shm it made, nor an index it rewrote.
        let companions = try wrapSystem { try WALCompanions(databasePath: layout.database) }
        var writer: Connection?
        let pool: DatabasePool
        do {
            let connection = try Connection(
                path: layout.database, mode: readOnly ? .immutableReader : .writer, key: databaseKey,
                cipher: metadata.cipher, cacheSizeKiB: configuration.cacheSizeKiB)
            writer = connection
            try configuration.configureConnection(connection)
            if !readOnly {
                // An older database gets the store id now, in the migrations' transaction (upgrade audit 28).
                try configuration.migrator.migrate(connection) { db in
                    guard !recordsStoreID else { return }
                    try db.execute(
                        "INSERT OR IGNORE INTO cipherdex_settings (name, value) VALUES (?, ?)",
                        [.text(storeIDSetting), .text(metadata.storeID)])
                }
            }
            pool = DatabasePool(
                writer: connection, maximumReaders: configuration.maximumReaders,
                readsOnWriter: configuration.readsOnWriter
            ) {
                let reader = try Connection(
                    path: layout.database, mode: readOnly ? .immutableReader : .reader, key: databaseKey,
                    cipher: metadata.cipher, cacheSizeKiB: configuration.cacheSizeKiB)
                try configuration.configureConnection(reader)
                return reader
            }
        } catch let error as DatabaseError {
            writer?.close()
            try? companions.restore()
            throw openFailure(error, encrypted: metadata.encrypted, databasePath: layout.database)
        }
        let store = Store(
            layout: layout, configuration: configuration, metadata: metadata, dataKey: dataKey, pool: pool, lock: lock)
        do {
            try store.didOpen()
        } catch {
            store.pool.close()
            try? companions.restore()
            throw error
        }
        return store
    }

    /// Run once the store is open and its key and database verified: finishes or removes what a
    /// crash may have left (staged and removed attachments, temporary metadata files), deleting
    /// only what is provably unneeded.
    func didOpen() throws {
        // A read-only open writes nothing: what a crash left (staged files readers find in
        // `staging/`, files of another generation) waits for a writable open.
        guard !isReadOnly else { return }
        try restrictModes()
        try Store.wrapSystem {
            for name in FileSystem.contents(of: layout.directory) where name.hasPrefix(StoreMetadata.fileName + ".tmp-")
            {
                try FileSystem.removeFile(layout.directory + "/" + name)
            }
        }
        try Store.mappingDatabaseErrors {
            try pool.write { try attachmentStorage.reconcile(db: $0) }
        }
        // Best effort: files of another generation are unneeded, and one that cannot be removed
        // (a folder it cannot empty) must not keep a healthy store from opening.
        try? Store.wrapSystem { try Store.removeOtherGenerations(layout: layout) }
    }

    /// Runs `body` with the writer connection (package-internal: features and the benchmarks).
    package func write<T>(_ body: (Connection) throws -> T) throws -> T {
        try refuseWhenReadOnly()
        return try pool.write(body)
    }

    /// Runs `body` with a reader snapshot.
    package func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try pool.read(body)
    }
}
