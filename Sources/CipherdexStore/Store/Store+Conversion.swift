import Foundation

/// A test hook: the instants of a conversion at which a crash is injected.
enum ConversionStep: Sendable, Equatable {
    case databaseExported
    case attachmentCopied(Int)
    case hashesUpdated
    case metadata(AtomicWriteStep)
    case switched
}

extension Store {
    /// A progress handler: return false to cancel (the old generation stays current).
    public typealias ConversionProgressHandler = (StoreConversionProgress) -> Bool

    /// Re-encrypts the store at `configuration.path` (closed; opened with its key) under a new
    /// random data key: the database is copied with `sqlcipher_export` into a new file and every
    /// attachment is decrypted and sealed again with new per-file keys, beside the current files;
    /// one atomic metadata update then makes the new generation current and the old files are
    /// removed. Someone holding an old `metadata.json` and an old key learns nothing from the
    /// new files.
    ///
    /// The new data key is wrapped for `newKey` (called once), or again for the key that opened
    /// the store when nil. **Every other keyslot is removed** — their keys are not known here —
    /// so add the other keys and a new recovery key afterwards. A kill at any instant leaves the
    /// old or the new generation, complete; what the other left is removed at the next open.
    /// Throws `StoreConversionError.insufficientSpace` before writing anything when the disk is
    /// short, `.cancelled` when `progress` returns false or the task is cancelled. Returns the
    /// keyslots that were removed (all but the one that opened the store).
    ///
    /// Disfavoured, as `open` is: where `Cipherdex` is imported, its `reencrypt` (which keys the
    /// search index's content hashes again) is the one called.
    @_disfavoredOverload
    @discardableResult
    public static func reencrypt(
        _ configuration: StoreConfiguration, newKey: KeyProvider? = nil, progress: ConversionProgressHandler? = nil
    ) throws -> [StoreInfo.KeyslotInfo] {
        try reencrypt(configuration, newKey: newKey, progress: progress, cancellation: nil)
    }

    /// `reencrypt(_:newKey:progress:)`, stopping with `CancellationError` when `cancellation` is set.
    static func reencrypt(
        _ configuration: StoreConfiguration, newKey: KeyProvider?, progress: ConversionProgressHandler?,
        cancellation: WorkCancellation?
    ) throws -> [StoreInfo.KeyslotInfo] {
        // An unencrypted store opened without a key would say `keyRequired`.
        if recordedEncryption(at: configuration.path) == false {
            throw StoreError.notEncrypted(path: configuration.path)
        }
        guard let opening = configuration.keyProvider else { throw EncryptionError.keyRequired }
        return try convert(
            configuration, target: .encrypted(newKey ?? opening), progress: progress, cancellation: cancellation,
            faultPoint: { _ in })
    }

    /// Encrypts the unencrypted store at `configuration.path` (opened without a key) in place:
    /// same directory, every document, attachment, index entry and setting kept, by the same
    /// generation switch as `reencrypt`. Afterwards only `newKey`'s key opens it (an open
    /// without a key is `keyRequired`). Opening stays strict: this is the only way to turn a
    /// plaintext store into an encrypted one. Disfavoured as `reencrypt` is.
    @_disfavoredOverload
    public static func encrypt(
        _ configuration: StoreConfiguration, newKey: @escaping KeyProvider, progress: ConversionProgressHandler? = nil
    ) throws {
        try encrypt(configuration, newKey: newKey, progress: progress, cancellation: nil)
    }

    /// `encrypt(_:newKey:progress:)`, stopping with `CancellationError` when `cancellation` is set.
    static func encrypt(
        _ configuration: StoreConfiguration, newKey: @escaping KeyProvider, progress: ConversionProgressHandler?,
        cancellation: WorkCancellation?
    ) throws {
        guard configuration.keyProvider == nil else {
            throw StoreConversionError.alreadyEncrypted(path: configuration.path)
        }
        // An encrypted store opened without a key would say `keyRequired`: what the caller needs
        // to hear is that it is encrypted already.
        if recordedEncryption(at: configuration.path) == true {
            throw StoreConversionError.alreadyEncrypted(path: configuration.path)
        }
        _ = try convert(
            configuration, target: .encrypted(newKey), progress: progress, cancellation: cancellation,
            faultPoint: { _ in })
    }

    /// What the metadata at `path` says of encryption, read without the lock and without a key
    /// (nil when it cannot be read or parsed: the open then says why). Only for choosing an error;
    /// the open checks everything again.
    static func recordedEncryption(at path: String) -> Bool? {
        StoreMetadata.onDisk(at: StoreLayout(directory: path).metadata)?.encrypted
    }

    /// Decrypts the encrypted store at `configuration.path` (opened with its key) in place: every
    /// file of the new generation is plaintext, every keyslot is gone, and the store opens only
    /// without a key. Irreversible for the data's confidentiality: confirm with the user first.
    /// Disfavoured as `reencrypt` is.
    @_disfavoredOverload
    public static func decrypt(_ configuration: StoreConfiguration, progress: ConversionProgressHandler? = nil) throws {
        try decrypt(configuration, progress: progress, cancellation: nil)
    }

    /// `decrypt(_:progress:)`, stopping with `CancellationError` when `cancellation` is set.
    static func decrypt(
        _ configuration: StoreConfiguration, progress: ConversionProgressHandler?, cancellation: WorkCancellation?
    ) throws {
        // An unencrypted store, with a key or without, is said to be not encrypted (not
        // `keyUnexpected` or `keyRequired`).
        if recordedEncryption(at: configuration.path) == false {
            throw StoreError.notEncrypted(path: configuration.path)
        }
        guard configuration.keyProvider != nil else { throw EncryptionError.keyRequired }
        _ = try convert(
            configuration, target: .plaintext, progress: progress, cancellation: cancellation, faultPoint: { _ in })
    }

    /// The generation the metadata at `path` names as current, read without the lock and
    /// without a key (nil when it cannot be read or parsed).
    static func recordedDataGeneration(at path: String) -> Int? {
        StoreMetadata.onDisk(at: StoreLayout(directory: path).metadata)?.currentDataGeneration
    }

    /// What the new generation is encrypted with.
    enum ConversionTarget {
        case encrypted(KeyProvider)
        case plaintext

        /// The name of the call converting a store (encrypted or not) to this target.
        func operation(encrypted: Bool) -> String {
            switch self {
            case .encrypted: return encrypted ? "reencrypt" : "encrypt"
            case .plaintext: return "decrypt"
            }
        }

        /// What a switch to it means for the caller, for an error message.
        var outcome: String {
            switch self {
            case .encrypted: return "only the new key opens it"
            case .plaintext: return "it is not encrypted any more"
            }
        }
    }

    static func convert(
        _ configuration: StoreConfiguration, target: ConversionTarget, progress: ConversionProgressHandler?,
        cancellation: WorkCancellation? = nil, faultPoint: (ConversionStep) throws -> Void
    ) throws -> [StoreInfo.KeyslotInfo] {
        var configuration = configuration
        configuration.createIfMissing = false
        let store = try Store.open(configuration)
        if store.isReadOnly {
            // Refused before anything (the clean-up of a failure included) could write.
            defer { store.close() }
            try store.refuseWhenReadOnly()
        }
        do {
            // A feature's tables this caller did not load (search, opened with `CipherdexStore`
            // alone) keep what the new key must key again (its content hashes): refused before
            // anything is written.
            try store.refuseWithForeignFeatures(target.operation(encrypted: store.isEncrypted))
        } catch {
            store.close()
            throw error
        }
        let old = store.layout
        let next = old.withGeneration(old.generation + 1)
        let removed = store.metadata.withLock { metadata in
            metadata.keyslots.filter { $0.id != store.openedKeyslot }.map(StoreInfo.KeyslotInfo.init)
        }
        do {
            try store.writeNextGeneration(
                next, target: target, progress: progress, cancellation: cancellation, faultPoint: faultPoint)
        } catch {
            // An injected crash leaves everything as a kill would. Otherwise the metadata on disk
            // says which generation is current: an error after the switch's rename (the folder's
            // fsync) leaves the new one current, and only a failure before it may remove the new
            // generation. When the metadata cannot be read, nothing is removed.
            if error is InjectedFault {
                store.close()
                throw error
            }
            switch recordedDataGeneration(at: old.directory) {
            case .some(next.generation):
                store.close()
                throw StoreError.notDurable(
                    error, path: old.metadata, change: "the store was switched to its new copy (\(target.outcome))")
            case .some(old.generation):
                store.close(beforeReleasingLock: { try? Store.removeOtherGenerations(layout: old) })
            default:
                store.close()
            }
            throw error
        }
        store.close(beforeReleasingLock: { try? Store.removeOtherGenerations(layout: next) })
        return removed
    }

    private func writeNextGeneration(
        _ next: StoreLayout, target: ConversionTarget, progress: ConversionProgressHandler?,
        cancellation: WorkCancellation?, faultPoint: (ConversionStep) throws -> Void
    ) throws {
        guard next.generation <= StoreMetadata.maximumDataGeneration else {
            throw StoreError.storeCorrupted(reason: "the store has no data generation left")
        }
        try refuseInsideTransaction("conversion")
        for folder in [layout.attachments, layout.staging] where Self.isElsewhere(folder, from: layout.directory) {
            throw StoreConversionError.dataFolderElsewhere(path: folder)
        }
        let rows = try Store.mappingDatabaseErrors {
            try pool.write { db in
                try db.rows("SELECT id, length, content_hash FROM attachments ORDER BY id").compactMap {
                    row -> (String, UInt64, [UInt8])? in
                    guard let id = row[0].textValue, let length = row[1].integerValue else { return nil }
                    return (id, UInt64(max(0, length)), row[2].blobValue ?? [])
                }
            }
        }
        let unrecorded = try unrecordedAttachmentFiles(known: Set(rows.map(\.0)))
        let databaseBytes = (FileSystem.size(layout.database) ?? 0) + (FileSystem.size(layout.databaseWAL) ?? 0)
        let totalBytes = databaseBytes + rows.reduce(0) { $0 + $1.1 } + unrecorded.reduce(0) { $0 + $1.length }
        // Room for the whole new generation, its journal and a margin, checked before writing.
        let needed = totalBytes + totalBytes / 10 + (4 << 20)
        let available = try Store.wrapSystem { try FileSystem.availableBytes(at: layout.directory) }
        guard available >= needed else {
            throw StoreConversionError.insufficientSpace(
                path: layout.directory, neededBytes: needed, availableBytes: available)
        }
        var done: UInt64 = 0
        func report(_ phase: StoreConversionProgress.Phase) throws {
            try cancellation?.check()
            if Task.isCancelled { throw StoreConversionError.cancelled }
            guard let progress else { return }
            guard progress(StoreConversionProgress(phase: phase, completedBytes: done, totalBytes: totalBytes)) else {
                throw StoreConversionError.cancelled
            }
        }

        // The new metadata first: a key that cannot be used fails before any work.
        var updated = metadata.withLock { $0 }
        let newDataKey: SecureBytes?
        switch target {
        case .encrypted(let provider):
            let key = try provider()
            let dataKey = SecureBytes.random(count: 32)
            let label = updated.keyslots.first { $0.id == openedKeyslot }?.label
            updated.encrypted = true
            updated.cipher = updated.cipher ?? .default
            updated.keyslots = [
                try Keyslot.seal(
                    dataKey: dataKey, with: key, slotID: 1, storeID: updated.storeID,
                    cost: configuration.passphraseCost, label: label)
            ]
            newDataKey = dataKey
        case .plaintext:
            updated.encrypted = false
            updated.cipher = nil
            updated.keyslots = []
            newDataKey = nil
        }
        updated.dataGeneration = next.generation
        updated.generation += 1
        let databaseKey = newDataKey?.sqlcipherRawKeyLiteral()

        try report(.database)
        try Store.wrapSystem {
            // Leftovers of an earlier attempt were removed by the open; make sure.
            try Store.removeGenerationFiles(next)
        }
        try Store.wrapSystem {
            // ATTACH cannot create a file (the writer is opened without SQLITE_OPEN_CREATE), and
            // an owner-only file must exist before SQLite gives its journal the same mode.
            let file = try FileDescriptor(path: next.database, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            try FileDescriptor.retrying(operation: "fchmod", path: file.path) { fchmod(file.rawValue, 0o600) }
        }
        try Store.mappingDatabaseErrors {
            try pool.write { db in try db.exportDatabase(to: next.database, key: databaseKey, cipher: updated.cipher) }
        }
        done += databaseBytes
        try faultPoint(.databaseExported)

        let source = attachmentStorage
        let destination = AttachmentStorage(layout: next, dataKey: newDataKey)
        try Store.wrapSystem { try FileSystem.createDirectory(next.attachments) }
        var hashes: [(String, [UInt8])] = []
        for (number, (id, length, recordedHash)) in rows.enumerated() {
            try report(.attachments)
            let hash = try destination.copy(id, from: source, recordedLength: length, recordedHash: recordedHash) {
                bytes in
                done += UInt64(bytes)
                try report(.attachments)
            }
            hashes.append((id, hash))
            try faultPoint(.attachmentCopied(number))
        }
        hashes = Sodium.ContentHash.distinct(hashes, key: destination.deduplicationKey)
        try destination.sealAgain(unrecorded: unrecorded, from: source) { bytes in
            done += UInt64(bytes)
            try report(.attachments)
        }
        try Store.wrapSystem { try FileSystem.syncDirectory(next.attachments) }

        // The new database gets the content hashes under the new deduplication key, then is
        // checked and made durable before the switch.
        try Store.mappingDatabaseErrors {
            let connection = try Connection(
                path: next.database, mode: .writer, key: databaseKey, cipher: updated.cipher)
            defer { connection.close() }
            try configuration.configureConnection(connection)
            try connection.transaction {
                for (id, hash) in hashes {
                    try connection.execute(
                        "UPDATE attachments SET content_hash = ? WHERE id = ?", [.blob(hash), .text(id)])
                }
                // What the features keyed with the old deduplication key (search's content hashes).
                let change = ContentKeyChange(
                    connection: connection, oldKey: source.deduplicationKey, newKey: destination.deduplicationKey,
                    attachments: destination)
                for feature in configuration.allFeatures { try feature.contentKeyChanged(change) }
            }
            let check = try connection.scalar("PRAGMA quick_check")?.textValue
            guard check == "ok" else {
                throw StoreError.storeCorrupted(reason: "the new copy of the database fails its check: \(check ?? "?")")
            }
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try Store.wrapSystem {
            try FileDescriptor(path: next.database, flags: O_RDONLY).sync()
            try FileSystem.syncDirectory(layout.directory)
        }
        try faultPoint(.hashesUpdated)
        try report(.switching)

        // The switch: one atomic metadata replacement. Before its rename the old generation is
        // current, after it the new one.
        let bytes = try updated.seal(dataKey: newDataKey)
        try keyChange.run {
            try Store.wrapSystem {
                try FileSystem.writeAtomically(
                    bytes, to: layout.metadata, faultPoint: { try faultPoint(.metadata($0)) })
            }
            metadata.withLock { $0 = updated }
        }
        try faultPoint(.switched)
    }

    /// Whether `folder` is a symbolic link, a directory on another file system than `directory`,
    /// or a mount point (a bind mount of a folder elsewhere has the same `st_dev`).
    static func isElsewhere(_ folder: String, from directory: String) -> Bool {
        var folderInfo = stat()
        var directoryInfo = stat()
        guard lstat(folder, &folderInfo) == 0 else { return false }
        if (folderInfo.st_mode & S_IFMT) == S_IFLNK { return true }
        guard stat(directory, &directoryInfo) == 0 else { return false }
        return folderInfo.st_dev != directoryInfo.st_dev || MountPoints.isMountPoint(FileSystem.resolvedPath(folder))
    }

    /// Removes the files of generation `layout` (before writing it anew). Its attachments
    /// folder holding what is not the store's (a folder, a file of another name: `removeOwnedFolder`
    /// leaves those) is refused before anything is written there, `unrecordedAttachmentFile`
    /// naming it: the new generation would take it in.
    static func removeGenerationFiles(_ layout: StoreLayout) throws {
        for path in [layout.database, layout.databaseWAL, layout.databaseSHM, layout.databaseJournal] {
            try FileSystem.removeFile(path)
        }
        guard try removeOwnedFolder(layout.attachments) else {
            let left = (try? FileSystem.entries(of: layout.attachments))?.sorted().first
            throw StoreConversionError.unrecordedAttachmentFile(
                path: left.map { layout.attachments + "/" + $0 } ?? layout.attachments,
                reason: "it is not the store's (a folder, a file of another name, a mount point) and the new copy "
                    + "would be written beside it")
        }
    }
}
