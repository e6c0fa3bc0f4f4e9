import Foundation

extension Store {
    /// Deletes the store at `path`: every file it owns, then the directory if nothing else is in
    /// it. Refuses with `storeLocked` while the store is open anywhere.
    ///
    /// Crash-safe: the first step atomically renames the metadata to a tombstone, after which the
    /// store no longer exists (opening the path finishes the deletion and creates a new store);
    /// before it, the store is intact.
    public static func delete(at path: String) throws {
        let layout = StoreLayout(directory: path)
        guard FileSystem.isDirectory(path) else {
            throw StoreError.notAStore(
                path: path, reason: FileSystem.exists(path) ? "not a directory" : "no such directory")
        }
        let lock = try StoreLock(layout: layout)
        let markers = [
            layout.metadata, layout.deletionTombstone, layout.database, layout.creatingDatabase, layout.lockFile,
        ]
        guard markers.contains(where: FileSystem.exists) else {
            throw StoreError.notAStore(path: path, reason: "no store in this directory")
        }
        try wrapSystem {
            if FileSystem.exists(layout.metadata) {
                try FileSystem.rename(layout.metadata, to: layout.deletionTombstone)
                try FileSystem.syncDirectory(layout.directory)
            }
            try removeStoreFiles(layout: layout)
        }
        lock.release()
        _ = rmdir(path)
    }

    /// Deletes this store's files after closing it. Inside a transaction (on its thread) this
    /// throws `StoreError.insideTransaction` and changes nothing.
    public func closeAndDelete() throws {
        try refuseInsideTransaction("closeAndDelete()")
        close()
        try Store.delete(at: path)
    }

    /// Removes every owned file, the tombstone and the lock file last.
    static func removeStoreFiles(layout: StoreLayout) throws {
        for name in FileSystem.contents(of: layout.directory) where StoreLayout.isOwned(name) {
            let path = layout.directory + "/" + name
            if path == layout.deletionTombstone || path == layout.lockFile || path == layout.metadata { continue }
            if FileSystem.isDirectory(path) {
                try FileSystem.removeTree(path)
            } else {
                try FileSystem.removeFile(path)
            }
        }
        try FileSystem.syncDirectory(layout.directory)
        try FileSystem.removeFile(layout.deletionTombstone)
        try FileSystem.removeFile(layout.lockFile)
        try FileSystem.syncDirectory(layout.directory)
    }
}
