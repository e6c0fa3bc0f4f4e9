import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a backup is written, and the one atomic step that makes it the destination's content.
///
/// - A new destination (missing, or an empty directory): the copy is built in a locked sibling
///   directory `.<name>.backup-<random>` and renamed onto the destination once complete and
///   synced. A crash before the rename leaves the destination as it was and the sibling, which
///   the next backup to the same destination removes (its lock is free).
/// - An earlier backup (or, for a confirmed restore, any store): the destination's lock is
///   taken and the copy is written as a data generation the destination does not use
///   (`store.N.db`, `attachments.N/`, N = 1 when the current one is 0, else 0), attachments the
///   earlier backup of the same store already holds hard-linked from it; then `metadata.json` is
///   replaced atomically (that rename is the switch) and the old generation removed. A crash
///   leaves the old or the new backup current; the next open or backup removes the other.
struct BackupDestination {
    /// The destination path (trailing slashes removed).
    let path: String
    /// Where the new copy's database and attachments go.
    let target: StoreLayout
    /// The current generation of an earlier backup of the same store, whose attachment files
    /// may be reused; nil when there is none.
    let reusable: StoreLayout?
    /// The earlier backup's metadata `generation` (0 for a new destination).
    let previousMetadataGeneration: Int
    /// Held while writing: the destination's lock, or the sibling directory's.
    let lock: StoreLock
    /// Whether the copy goes into a sibling directory renamed onto `path` at the end.
    let isNew: Bool

    /// The prefix of the sibling directories new destinations are built in.
    static func siblingPrefix(of path: String) -> String {
        FileSystem.parent(of: path) + "/." + (path.split(separator: "/").last.map(String.init) ?? "backup")
            + ".backup-"
    }

    /// How many bytes longer than its destination a sibling's path (and name) is: a dot before
    /// the name, `.backup-` and 12 hex digits after it.
    static let siblingExtraBytes = ".".utf8.count + ".backup-".utf8.count + 12

    /// The longest absolute path of a new destination: its sibling holds generation 0's files,
    /// the longest `store.db-journal`, which SQLite must open (`longestDatabasePath`).
    static let longestNewPath =
        StoreConfiguration.longestDatabasePath - "/store.db-journal".utf8.count - siblingExtraBytes

    /// Refuses a new destination whose sibling could not be made or opened, before anything is
    /// created: `StoreError.invalidPath` naming the limit when the sibling's name would be longer
    /// than the file system allows (`NAME_MAX`, 255 bytes on most), or the destination's path
    /// (made absolute from the working folder, as SQLite does) longer than `longestNewPath`,
    /// where the copy's database would not open.
    static func refuseTooLongForSibling(_ path: String) throws {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        let name = trimmed.split(separator: "/").last.map(String.init) ?? trimmed
        let parent = FileSystem.parent(of: trimmed)
        let reportedLimit = pathconf(parent, Int32(_PC_NAME_MAX))
        let nameLimit = reportedLimit > 0 ? reportedLimit : Int(NAME_MAX)
        guard name.utf8.count + siblingExtraBytes <= nameLimit else {
            throw StoreError.invalidPath(
                path: path,
                reason: "its name is \(name.utf8.count) bytes long; a new backup or restore is built beside it in a "
                    + "folder whose name is \(siblingExtraBytes) bytes longer (.NAME.backup-…), and names in its "
                    + "folder \(parent) may be at most \(nameLimit) bytes: give a name of at most "
                    + "\(nameLimit - siblingExtraBytes) bytes")
        }
        let absolute = trimmed.hasPrefix("/") ? trimmed : FileManager.default.currentDirectoryPath + "/" + trimmed
        guard absolute.utf8.count <= longestNewPath else {
            throw StoreError.invalidPath(
                path: path,
                reason: "it is \(absolute.utf8.count) bytes long as an absolute path; a new backup or restore is "
                    + "built beside it in a folder whose path is \(siblingExtraBytes) bytes longer, and SQLite "
                    + "opens no file whose path is longer than \(StoreConfiguration.longestDatabasePath) bytes (its "
                    + "store.db-journal): it may be at most \(longestNewPath) bytes")
        }
    }

    /// Inspects `path` and takes its lock. `source` and `dataKey` tell an earlier backup of this
    /// store (same store id, metadata authenticated by the same data key) from another store,
    /// which is refused unless `replacing`.
    static func prepare(
        path rawPath: String, source: StoreMetadata, dataKey: SecureBytes?, replacing: Bool
    ) throws -> BackupDestination {
        var path = rawPath
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let kind = FileKind.of(path)
        switch kind {
        case .missing:
            return try newDestination(path: path)
        case .directory:
            // A folder that cannot be listed is an error, never an empty folder to build in.
            let names = try Store.wrapSystem { try FileSystem.entries(of: path) }
            if names.isEmpty {
                try Store.checkAccess(path, mode: R_OK | W_OK | X_OK)
                // Checked before anything is copied: the rename at the end could not land there.
                if Store.isElsewhere(path, from: FileSystem.parent(of: path)) {
                    throw BackupError.destinationIsMountPoint(path: path)
                }
                return try newDestination(path: path)
            }
            if holdsOnlyALockFile(path, names: names) {
                // What a killed `create` leaves: ours, and no store in it to keep or confirm.
                return try existingStore(
                    path: path, source: source, dataKey: dataKey, replacing: true, onlyALockFile: true)
            }
            // Only what is provably a Cipherdex store is ever written into or replaced: a
            // `store.db` or `attachments/` alone may be another program's.
            guard Store.isProvablyCipherdexStore(StoreLayout(directory: path)) else {
                throw BackupError.destinationNotAStore(
                    path: path,
                    reason: Store.exists(at: path)
                        ? "it holds files named like a store's, but no Cipherdex metadata, lock file or tombstone"
                        : "a directory holding other files (\(names.count) entries)")
            }
            return try existingStore(path: path, source: source, dataKey: dataKey, replacing: replacing)
        default:
            // A name or path the system cannot even look at (`ENAMETOOLONG`) names no store.
            if kind == .unknown(errno: ENAMETOOLONG) { try refuseTooLongForSibling(path) }
            throw BackupError.destinationNotAStore(path: path, reason: "it is \(kind.description)")
        }
    }

    private static func newDestination(path: String) throws -> BackupDestination {
        try refuseTooLongForSibling(path)
        do {
            try Store.refuseInsideAnotherStoresFolder(path)
        } catch StoreError.invalidPath(_, let reason) {
            throw BackupError.destinationNotAStore(path: path, reason: reason)
        }
        let parent = FileSystem.parent(of: path)
        guard FileSystem.isDirectory(parent) else {
            throw BackupError.destinationNotAStore(
                path: path,
                reason: FileSystem.exists(parent)
                    ? "its parent \(parent) is not a directory" : "its parent folder \(parent) does not exist")
        }
        try Store.checkAccess(parent, mode: W_OK | X_OK)
        let prefix = siblingPrefix(of: path)
        // Siblings an interrupted backup left (no one holds their lock): unneeded. Only what is
        // provably one (the exact name a backup gives, and the lock file it makes at once inside;
        // without it, only an empty folder) is removed; best effort: what cannot be removed stays.
        let prefixName = String(prefix.dropFirst(parent.count + 1))
        for name in FileSystem.contents(of: parent) where isSiblingName(name, prefix: prefixName) {
            let sibling = StoreLayout(directory: parent + "/" + name)
            guard case .directory = FileKind.of(sibling.directory),
                let held = try? StoreLock(layout: sibling), held.holdsDirectory(at: sibling.directory)
            else { continue }
            if FileKind.of(sibling.lockFile).isRegular {
                try? FileSystem.removeTree(sibling.directory)
            } else {
                _ = rmdir(sibling.directory)
            }
            held.release()
        }
        // Another backup to the same destination may be removing leftovers at this moment: it
        // can take the lock of a sibling made here before this backup does, and remove it. A
        // sibling is ours once its lock is held and it is still at its path; else another one.
        var attempts = 0
        while true {
            attempts += 1
            let directory = prefix + Sodium.randomBytes(6).map { String(format: "%02x", $0) }.joined()
            _ = try Store.wrapSystem {
                try FileDescriptor.retrying(operation: "mkdir", path: directory) { mkdir(directory, 0o700) }
            }
            let layout = StoreLayout(directory: directory)
            do {
                let lock = try StoreLock(layout: layout)
                guard lock.holdsDirectory(at: directory) else {
                    lock.release()
                    throw StoreError.storeLocked(path: directory)
                }
                // What makes the folder provably a backup's for a later clean-up.
                try lock.createLockFile(layout: layout)
                return BackupDestination(
                    path: path, target: layout, reusable: nil, previousMetadataGeneration: 0, lock: lock, isNew: true)
            } catch {
                if let held = try? StoreLock(layout: layout), held.holdsDirectory(at: directory) {
                    try? FileSystem.removeTree(directory)
                    held.release()
                }
                // Without a lock to be had (out of descriptors), the folder made here is removed
                // if it is still empty (`rmdir` removes nothing else; another backup's holds its
                // lock file).
                _ = rmdir(directory)
                // Only losing the race for the folder is tried again (a failure of the
                // environment left eight empty folders behind, one per attempt).
                guard case StoreError.storeLocked = error, attempts < 8 else { throw error }
            }
        }
    }

    /// The lock of the folder at `path` a new copy is about to replace (nil when there is none);
    /// `destinationFilledMeanwhile` when another process holds it.
    private static func lockOfEmptyFolder(at path: String) throws -> StoreLock? {
        guard case .directory = FileKind.of(path) else { return nil }
        do {
            return try StoreLock(layout: StoreLayout(directory: path))
        } catch StoreError.storeLocked {
            throw BackupError.destinationFilledMeanwhile(path: path)
        } catch StoreError.notAStore {
            // Gone since it was looked at (or holding a lock path that is not a file: the rename
            // then refuses a folder that is not empty).
            return nil
        }
    }

    /// Whether the folder at `path` (listed as `names`) holds nothing but a store's lock file, a
    /// regular file: no store, only what an interrupted `create` leaves.
    static func holdsOnlyALockFile(_ path: String, names: [String]) -> Bool {
        let layout = StoreLayout(directory: path)
        return names == [(layout.lockFile as NSString).lastPathComponent] && FileKind.of(layout.lockFile).isRegular
    }

    /// Whether `name` is what `newDestination` names a sibling: `prefix` and 12 lowercase hex
    /// digits.
    private static func isSiblingName(_ name: String, prefix: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let suffix = name.utf8.dropFirst(prefix.utf8.count)
        return suffix.count == 12
            && suffix.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// `onlyALockFile`: the folder held only a lock file when looked at, so it is replaced
    /// without confirmation; a `create` running then holds that lock and may finish while this
    /// waits for it (review 28b: the backup replaced the store just created, both said success).
    private static func existingStore(
        path: String, source: StoreMetadata, dataKey: SecureBytes?, replacing: Bool, onlyALockFile: Bool = false
    ) throws -> BackupDestination {
        try Store.checkAccess(path, mode: R_OK | W_OK | X_OK)
        let layout = StoreLayout(directory: path)
        let lock = try StoreLock(layout: layout)
        if onlyALockFile, !holdsOnlyALockFile(path, names: (try? FileSystem.entries(of: path)) ?? []) {
            lock.release()
            throw BackupError.destinationFilledMeanwhile(path: path)
        }
        let previous: StoreMetadata?
        do {
            previous = try StoreMetadata.onDiskUnlessUnreadable(at: layout.metadata)
        } catch {
            // Not known to be unreadable (out of file descriptors, a failing device): which
            // generation is live cannot be told, and the one picked for the copy could be it
            // (a `restore --yes` out of descriptors deleted the live database).
            lock.release()
            throw error
        }
        var sameStore = false
        if let previous, previous.storeID == source.storeID, previous.encrypted == source.encrypted {
            if let dataKey {
                sameStore = (try? previous.verifyMAC(dataKey: dataKey)) != nil
            } else {
                sameStore = true
            }
        }
        guard sameStore || replacing else {
            lock.release()
            throw BackupError.destinationIsAnotherStore(path: path)
        }
        let current = previous?.currentDataGeneration
        let generation: Int
        switch current {
        case 0: generation = 1
        case .some: generation = 0
        case nil:
            // Unreadable metadata (a confirmed replace): a generation with no file yet.
            let names: [String]
            do {
                names = try Store.wrapSystem { try FileSystem.entries(of: path) }
            } catch {
                lock.release()
                throw error
            }
            generation =
                (0...2).first { candidate in !names.contains { Store.generationOfDataFile($0) == candidate } } ?? 3
        }
        let target = layout.withGeneration(generation)
        do {
            try Store.wrapSystem { try Store.removeGenerationFiles(target) }
        } catch StoreConversionError.unrecordedAttachmentFile(let folder, let reason) {
            throw BackupError.destinationNotAStore(
                path: path, reason: "\(folder), where the copy would go, is not empty: \(reason); move that out")
        }
        return BackupDestination(
            path: path, target: target, reusable: sameStore ? current.map { layout.withGeneration($0) } : nil,
            previousMetadataGeneration: previous?.generation ?? 0, lock: lock, isNew: false)
    }

    /// A path on the destination's file system, for the free-space check.
    var spaceProbePath: String { target.directory }

    /// Makes the copy the destination's content: writes `metadata` (naming the target
    /// generation) and switches atomically, then removes what the previous content left.
    func commit(_ metadataBytes: [UInt8], faultPoint: (BackupStep) throws -> Void) throws {
        defer { lock.release() }
        try Store.wrapSystem {
            if isNew {
                let file = try FileDescriptor(
                    path: target.metadata, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
                try file.writeAll(metadataBytes)
                try file.sync()
                try FileSystem.syncDirectory(target.directory)
                try faultPoint(.beforeSwitch)
                // An empty folder there is replaced only while no one holds its lock: a `create`
                // waiting for its key holds it, and wrote over this copy by path, then removed
                // it on failing (multi-process audit 28).
                let emptyFolderLock = try Self.lockOfEmptyFolder(at: path)
                defer { emptyFolderLock?.release() }
                // rename(2) replaces an empty directory atomically, and refuses a non-empty one:
                // then something else filled the destination since the backup looked at it.
                do {
                    try FileSystem.rename(target.directory, to: path)
                } catch let error as SystemError where error.errno == ENOTEMPTY || error.errno == EEXIST {
                    throw BackupError.destinationFilledMeanwhile(path: path)
                }
                try faultPoint(.metadata(.renamed))
                try FileSystem.syncDirectory(FileSystem.parent(of: path))
            } else {
                try FileSystem.syncDirectory(target.directory)
                try faultPoint(.beforeSwitch)
                try FileSystem.writeAtomically(
                    metadataBytes, to: target.metadata, faultPoint: { try faultPoint(.metadata($0)) })
            }
        }
        try faultPoint(.switched)
        guard !isNew else { return }
        // The new copy is current: what the old content left is provably unneeded.
        try? Store.removeOtherGenerations(layout: target)
        _ = try? Store.removeOwnedFolder(target.staging)
        try? FileSystem.removeFile(target.deletionTombstone)
        try? FileSystem.syncDirectory(target.directory)
    }

    /// Whether the destination's metadata on disk names this copy (the store `storeID`, its
    /// generation `metadataGeneration` and the target's data generation): true after the
    /// switch's rename, even when what followed it failed. Then nothing of the copy may be
    /// removed. (Errors the backup itself raises, `BackupError`, all come before the switch.)
    /// Nil when the metadata could not be read for the environment's sake (out of descriptors):
    /// then it is not known, and nothing may be removed either.
    func switched(toMetadataGeneration metadataGeneration: Int, storeID: String) -> Bool? {
        let file = StoreLayout(directory: path).metadata
        // No metadata there (told by `lstat`, which takes no descriptor): no switch.
        if case .missing = FileKind.of(file) { return false }
        let metadata: StoreMetadata?
        do {
            metadata = try StoreMetadata.onDiskUnlessUnreadable(at: file)
        } catch {
            return nil
        }
        guard let metadata else { return false }
        return metadata.storeID == storeID && metadata.generation == metadataGeneration
            && metadata.currentDataGeneration == target.generation
    }

    /// Removes what an unfinished backup wrote (the destination keeps its previous content).
    func discard() {
        if isNew {
            if (try? FileSystem.removeTree(target.directory)) == nil {
                // Out of descriptors, the walk could not open the folder: once the lock's own are
                // given back, it can (the folder is this backup's, with a random name).
                lock.release()
                try? FileSystem.removeTree(target.directory)
                return
            }
        } else {
            try? Store.removeGenerationFiles(target)
            try? FileSystem.syncDirectory(target.directory)
        }
        lock.release()
    }
}

/// A test hook: the instants of a backup at which a crash is injected.
enum BackupStep: Sendable, Equatable {
    case databaseCopied
    case attachmentCopied(Int)
    case beforeSwitch
    /// A step of the metadata's replacement (an existing destination), or the folder's rename
    /// (`.renamed`, a new one).
    case metadata(AtomicWriteStep)
    case switched
}
