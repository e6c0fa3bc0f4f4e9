import Foundation
import Synchronization

extension Store {
    /// Creates a new store. Order, for crash safety: the database is built under a temporary name
    /// and closed cleanly, then the metadata is written atomically, then the database is renamed
    /// into place. A crash before the metadata leaves no store (leftovers are removed by the next
    /// create); a crash after it leaves a store whose next open finishes the rename.
    static func create(layout: StoreLayout, configuration: StoreConfiguration, lock existingLock: StoreLock? = nil)
        throws -> Store
    {
        // The key comes first: a provider that fails (a missing key file, a key of the wrong
        // length) must leave nothing behind, not even the directory.
        let key = try configuration.keyProvider?()
        if let key, key.kind == .passphrase {
            try Keyslot.checkAccepted(configuration.passphraseCost)
        }
        let createdDirectory = !FileSystem.exists(layout.directory)
        // An existing (empty) folder gets its mode back when the create fails: it is left as it
        // was found, not made private.
        let foundMode = createdDirectory ? nil : Self.permissionBits(of: layout.directory)
        try wrapSystem {
            do {
                try FileSystem.createDirectory(layout.directory)
            } catch let error as SystemError where error.errno == ENOENT {
                // The folder above was there when the open looked, and is gone now.
                throw StoreError.parentFolderMissing(
                    path: layout.directory, parent: FileSystem.parent(of: layout.directory))
            }
            try FileSystem.restrictMode(layout.directory, to: 0o700)
        }
        // The lock before anything else is looked at or removed: a failure to take it (another
        // process holds it) removes nothing. Without a lock from the caller, the directory was
        // missing when the caller looked: another process may have made a store here since,
        // so look again once the lock is held, and open what is there rather than build over it.
        let lock: StoreLock
        do {
            lock = try existingLock ?? StoreLock(layout: layout)
        } catch {
            if let foundMode { _ = chmod(layout.directory, foundMode) }
            throw error
        }
        if existingLock == nil && Store.exists(at: layout.directory) {
            lock.release()
            if configuration.requiresNewStore { throw StoreAlreadyExists(path: layout.directory) }
            var existing = configuration
            existing.createIfMissing = false
            // The key was asked for already: the open uses it rather than asking again (a person
            // typing a passphrase would be asked twice). The store keeps its configuration, so
            // the key is handed over once and dropped when the open returns.
            guard let key, let provider = configuration.keyProvider else {
                return try open(existing, cancellation: nil)
            }
            let handover = KeyHandover(key)
            defer { handover.drop() }
            existing.keyProvider = { try handover.take() ?? provider() }
            return try open(existing, cancellation: nil)
        }
        if existingLock == nil && !createdDirectory {
            // The folder appeared since the caller looked: only if it is empty or holds what a
            // create of ours left.
            do {
                try checkEmptyOrOurLeftovers(layout)
            } catch {
                if let foundMode { _ = chmod(layout.directory, foundMode) }
                lock.release()
                throw error
            }
        }
        var metadataWritten = false
        do {
            return try build(
                layout: layout, configuration: configuration, key: key, lock: lock, metadataWritten: &metadataWritten)
        } catch {
            // The folder is another's now (a backup or restore renamed its copy over it while the
            // key was asked for): nothing in it was made here, nothing is removed or changed.
            guard lock.holdsDirectory(at: layout.directory, followingLinks: true) else {
                lock.release()
                throw error
            }
            // The caller hears that nothing was created: remove what this attempt made (the lock
            // is held), never anything else. When its metadata was written and a later step
            // failed (the open after it, on a full disk), the metadata goes first, so a crash
            // during this leaves no store (only files of ours, which the next create removes or
            // keeps as data).
            if metadataWritten && !(error is InjectedFault) {
                if (try? FileSystem.removeFile(layout.metadata)) != nil {
                    try? FileSystem.syncDirectory(layout.directory)
                    for path in [layout.database, layout.databaseWAL, layout.databaseSHM, layout.databaseJournal] {
                        try? FileSystem.removeFile(path)
                    }
                    _ = try? removeOwnedFolder(layout.attachments)
                }
            }
            if !FileSystem.exists(layout.metadata) {
                for leftover in [
                    layout.creatingDatabase, layout.creatingDatabase + "-journal", layout.creatingDatabase + "-wal",
                    layout.creatingDatabase + "-shm", layout.lockFile,
                ] {
                    try? FileSystem.removeFile(leftover)
                }
                _ = try? removeOwnedFolder(layout.staging)
                if createdDirectory { _ = rmdir(layout.directory) }
                if let foundMode { _ = chmod(layout.directory, foundMode) }
            }
            lock.release()
            throw error
        }
    }

    /// Throws `StoreError.changedMeanwhile` when the folder `lock` holds is no longer the one at
    /// the store's path.
    private static func refuseUnlessStillHeld(_ lock: StoreLock, layout: StoreLayout) throws {
        guard lock.holdsDirectory(at: layout.directory, followingLinks: true) else {
            throw StoreError.changedMeanwhile(path: layout.directory, operation: "create a store in")
        }
    }

    /// The permission bits (and set-id and sticky bits) of `path`, or nil when it cannot be
    /// looked at.
    private static func permissionBits(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// The steps of `create` after the directory exists.
    private static func build(
        layout: StoreLayout, configuration: StoreConfiguration, key: EncryptionKey?, lock: StoreLock,
        metadataWritten: inout Bool
    ) throws -> Store {
        // The folder locked must still be the one at the path: a backup or restore may have
        // renamed its copy over the empty folder while the key was asked for (a passphrase being
        // typed), and this create then wrote over it by path and removed it on failing
        // (multi-process audit 28). Once the lock file is in, the folder is not empty and no
        // rename can replace it.
        try refuseUnlessStillHeld(lock, layout: layout)
        try wrapSystem {
            for leftover in [
                layout.creatingDatabase, layout.creatingDatabase + "-journal", layout.creatingDatabase + "-wal",
                layout.creatingDatabase + "-shm",
            ] {
                try FileSystem.removeFile(leftover)
            }
            try removeOwnedFolder(layout.staging)
        }
        try lock.createLockFile(layout: layout)
        try refuseUnlessStillHeld(lock, layout: layout)

        let storeID = Sodium.randomBytes(16).map { String(format: "%02x", $0) }.joined()
        var metadata = StoreMetadata(
            formatVersion: StoreMetadata.currentFormatVersion, storeID: storeID, encrypted: false, generation: 1,
            dataGeneration: nil, cipher: nil, keyslots: [], mac: nil, checksum: nil)
        var dataKey: SecureBytes?
        if let key {
            let newDataKey = SecureBytes.random(count: 32)
            metadata.encrypted = true
            metadata.cipher = .default
            metadata.keyslots = [
                try Keyslot.seal(
                    dataKey: newDataKey, with: key, slotID: 1, storeID: storeID, cost: configuration.passphraseCost)
            ]
            dataKey = newDataKey
        }
        // SQLite creates files 0644 (less the umask) and gives -wal and -shm the database's mode:
        // create the file first, owner-only.
        try wrapSystem {
            let file = try FileDescriptor(
                path: layout.creatingDatabase, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            try FileDescriptor.retrying(operation: "fchmod", path: file.path) { fchmod(file.rawValue, 0o600) }
        }
        do {
            let connection = try Connection(
                path: layout.creatingDatabase, mode: .writer, key: dataKey?.sqlcipherRawKeyLiteral(),
                cipher: metadata.cipher,
                create: true)
            try configuration.configureConnection(connection)
            try configuration.migrator.migrate(connection)
            try connection.execute(
                "INSERT INTO cipherdex_settings (name, value) VALUES (?, ?)",
                [.text(storeIDSetting), .text(storeID)])
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.close()
        } catch let error as DatabaseError {
            throw StoreError.classifying(error)
        }
        try wrapSystem {
            try FileDescriptor(path: layout.creatingDatabase, flags: O_RDONLY).sync()
            // Set first: an error after the rename (the folder's fsync) leaves this metadata.
            metadataWritten = true
            try FileSystem.writeAtomically(try metadata.seal(dataKey: dataKey), to: layout.metadata)
        }
        let store = try openDatabase(
            layout: layout, configuration: configuration, metadata: metadata, dataKey: dataKey, lock: lock)
        store.lifecycle.withLock { $0.openedKeyslotID = metadata.keyslots.first?.id }
        return store
    }
}

/// A store exists where a new one was asked for (`StoreConfiguration.requiresNewStore`).
package struct StoreAlreadyExists: Error, LocalizedError, Equatable {
    /// The store's directory.
    package let path: String

    /// One line naming the path.
    package var errorDescription: String? { "a store already exists at \(path)" }
}

/// A key already obtained from a key provider, handed to one later open instead of calling the
/// provider again; dropped (never kept by the store's configuration) once that open returns.
private final class KeyHandover: Sendable {
    private let key: Mutex<EncryptionKey?>

    init(_ key: EncryptionKey) { self.key = Mutex(key) }

    /// The key, once; nil afterwards.
    func take() -> EncryptionKey? {
        key.withLock { key in
            defer { key = nil }
            return key
        }
    }

    /// Drops the key if it was not taken.
    func drop() { key.withLock { $0 = nil } }
}
