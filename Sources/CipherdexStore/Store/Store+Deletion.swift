import Foundation

extension Store {
    /// Deletes the store at `path`: every file it owns, then the directory if nothing else is in
    /// it. Refuses with `storeLocked` while the store is open anywhere. Inside its folders
    /// (`attachments/`, `staging/`) only the files named as its attachments are the store's:
    /// anything else there (a folder, a mount point, a file of another name) stays as it is, and
    /// so does the folder that holds it. A mount point where a whole store folder would be is
    /// never entered either.
    ///
    /// Crash-safe: the first step atomically renames the metadata to a tombstone, after which the
    /// store no longer exists (opening the path finishes the deletion and creates a new store);
    /// before it, the store is intact.
    ///
    /// The folder stays when it holds what is not the store's, or when it cannot be removed
    /// (its parent not writable, a mount point): not an error, since the store is deleted
    /// (`cipherdex delete` says why the folder stays).
    public static func delete(at path: String) throws {
        _ = try deleteReportingFolder(at: path)
    }

    /// `delete(at:)`, returning what became of the folder once the store is gone: removed, kept
    /// because it holds what is not the store's, or left empty because it could not be removed,
    /// with the reason.
    package static func deleteReportingFolder(at path: String) throws -> StoreFolderOutcome {
        let layout = StoreLayout(directory: path)
        guard FileSystem.isDirectory(path) else {
            throw StoreError.notAStore(
                path: path, reason: FileSystem.exists(path) ? "not a directory" : "no such directory")
        }
        let lock = try StoreLock(layout: layout)
        // A metadata path that is not a file (a folder put there) is not renamed away: the
        // deletion could never remove what it became. Said before anything is done.
        let metadataKind = FileKind.of(layout.metadata)
        if metadataKind.exists && !metadataKind.isRegular {
            throw StoreError.notAStore(
                path: path,
                reason: "\(layout.metadata) is \(metadataKind.description), not a file; nothing was deleted")
        }
        guard isProvablyCipherdexStore(layout) else {
            let reason =
                FileSystem.contents(of: path).isEmpty
                // Also what a `delete` run again after `deletionIncomplete` finds when only the
                // last folder sync had failed: the store's files are all gone.
                ? "the directory is empty: nothing of a store is left in it to delete"
                : "no Cipherdex metadata, tombstone or lock file: its files are not provably a store's"
            throw StoreError.notAStore(path: path, reason: reason)
        }
        if FileSystem.exists(layout.metadata) {
            try wrapSystem { try FileSystem.rename(layout.metadata, to: layout.deletionTombstone) }
        }
        // From here on the store is deleted (it no longer opens): a failure leaves files that a
        // later `delete` removes, and says so rather than that nothing changed.
        do {
            try removeFiles(layout: layout)
        } catch let error as StoreError {
            // These say themselves that the store is gone and to run the command again.
            switch error {
            case .mountPoint, .changedMeanwhile: throw error
            default: break
            }
            throw StoreError.deletionIncomplete(path: path, cause: error)
        }
        lock.release()
        return removeFolder(path)
    }

    /// After the tombstone's rename: makes it durable, then removes the store's files.
    private static func removeFiles(layout: StoreLayout) throws {
        try wrapSystem {
            try FileSystem.syncDirectory(layout.directory)
            do {
                try removeStoreFiles(layout: layout)
            } catch let error as SystemError where error.errno == EBUSY {
                // A mount point deeper inside (`staging/x`, `attachments/sub`): never entered
                // nor removed; the tombstone and lock file stay, so a later `delete` finishes.
                throw StoreError.mountPoint(
                    path: error.path, operation: "remove",
                    reason: "it is a mount point inside the store; unmount it, then delete again to finish "
                        + "(the store is already gone; nothing on the mount, nor outside the store, was removed)")
            }
        }
    }

    /// Removes the store's folder, emptied of the store's files, or says why it stays.
    static func removeFolder(_ path: String) -> StoreFolderOutcome {
        if case .symbolicLink = FileKind.of(path) {
            // The store reached through a link: its folder is where the link leads, and the link
            // is the user's (it said "removing it failed: Not a directory").
            let target = FileSystem.resolvedPath(path)
            guard target != path else { return .notRemoved(reason: "it is a symbolic link that leads nowhere") }
            let outcome = removeFolder(target)
            guard outcome == .removed else { return outcome }
            return .notRemoved(
                reason: "it is a symbolic link, left as it is; the folder it led to, \(target), was removed")
        }
        guard rmdir(path) != 0 else { return .removed }
        let code = errno
        if code == ENOENT { return .removed }
        let failure = "removing it failed: \(String(cString: strerror(code))) (errno \(code))"
        let names: [String]
        do {
            names = try FileSystem.entries(of: path)
        } catch {
            return .notRemoved(reason: "\(failure); it cannot be listed: \(error.localizedDescription)")
        }
        if !names.isEmpty { return .kept(remaining: names.sorted()) }
        if code == EBUSY && MountPoints.isMountPoint(FileSystem.resolvedPath(path)) {
            return .notRemoved(reason: "it is an empty mount point")
        }
        return .notRemoved(reason: "it is empty but \(failure)")
    }

    /// Whether the directory provably holds a Cipherdex store (or what is left of one): a
    /// deletion tombstone, the lock file every creation makes first, or metadata that parses as
    /// Cipherdex metadata. A `store.db` or `attachments/` alone may be another program's.
    static func isProvablyCipherdexStore(_ layout: StoreLayout) -> Bool {
        if FileKind.of(layout.deletionTombstone).isRegular || FileKind.of(layout.lockFile).isRegular { return true }
        guard FileKind.of(layout.metadata).isRegular,
            let bytes = try? FileSystem.readRegularFile(layout.metadata, limit: StoreMetadata.maximumFileSize)
        else { return false }
        do {
            _ = try StoreMetadata.parse(bytes)
            return true
        } catch EncryptionError.unsupportedScheme {
            return true
        } catch {
            return false
        }
    }

    /// Deletes this store's files after closing it. Inside a transaction or a read (on its
    /// thread) this throws `StoreError.insideTransaction` and changes nothing. The folder stays
    /// when `delete(at:)` would keep it.
    public func closeAndDelete() throws {
        // A closed handle no longer owns the path: another store may be there now.
        guard isOpen else { throw StoreError.closed }
        try refuseInsideTransaction("closeAndDelete()")
        try refuseWhenReadOnly()
        // Inside a read the store would close (once the read ends) and the delete find it still
        // held: refused before anything is done.
        if pool.holdsReaderOrWriter { throw StoreError.insideTransaction(operation: "closeAndDelete()") }
        // Queued work is not finished: the store is going.
        close(finishingQueuedWork: false, beforeReleasingLock: {})
        try Store.delete(at: path)
    }

    /// Removes every owned file, the tombstone and the lock file last: only once the folder,
    /// listed again, holds nothing else of the store's (a listing that fails is an error, never
    /// "nothing there"), since the tombstone and the lock file are what proves the rest ours.
    /// Another file system mounted in the store's folder is left as it is, and so is what is not
    /// the store's inside its folders (`removeOwnedFolder`: a store created inside
    /// `attachments/`, a user's file there), with the folder that holds it.
    static func removeStoreFiles(layout: StoreLayout) throws {
        var kept: Set<String> = []
        func remaining() throws -> [String] {
            try FileSystem.entries(of: layout.directory).filter { name in
                let path = layout.directory + "/" + name
                return StoreLayout.isOwned(name) && path != layout.deletionTombstone && path != layout.lockFile
                    && path != layout.metadata && !kept.contains(name)
                    && !MountPoints.isMountPoint(FileSystem.resolvedPath(path))
            }
        }
        for name in try remaining() {
            if try !removeOwnedFolder(layout.directory + "/" + name) { kept.insert(name) }
        }
        if let left = try remaining().first {
            throw SystemError(operation: "remove", path: layout.directory + "/" + left, errno: EBUSY)
        }
        try FileSystem.syncDirectory(layout.directory)
        try FileSystem.removeFile(layout.deletionTombstone)
        try FileSystem.removeFile(layout.lockFile)
        try FileSystem.syncDirectory(layout.directory)
    }
}
