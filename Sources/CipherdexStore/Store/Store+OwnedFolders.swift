import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Store {
    /// Removes one of the store's folders (`attachments/`, `attachments.N/`, `staging/`): the
    /// entries of it named by an attachment id that are not folders (the only names the store
    /// writes there), then the folder itself when that left it empty. Anything else in it (a
    /// folder, a file of another name: a store a user created inside it, a user's file) is not
    /// provably the store's: it stays, and so does the folder. A link at `path` (or a file in
    /// the folder's place) is removed itself, never what it points to; a mount point, or a folder
    /// of another file system, is left as it is. Returns whether the folder is gone.
    @discardableResult
    static func removeOwnedFolder(_ path: String) throws -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return true }
            throw SystemError(operation: "lstat", path: path, errno: errno)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            try FileSystem.removeFile(path)
            return true
        }
        var parent = stat()
        if lstat(FileSystem.parent(of: path), &parent) == 0 && parent.st_dev != info.st_dev { return false }
        if MountPoints.isMountPoint(FileSystem.resolvedPath(path)) { return false }
        for name in try FileSystem.entries(of: path) where AttachmentStorage.isValidID(name) {
            let entry = path + "/" + name
            if case .directory = FileKind.of(entry) { continue }
            try FileSystem.removeFile(entry)
        }
        if rmdir(path) == 0 || errno == ENOENT { return true }
        if errno == ENOTEMPTY || errno == EEXIST { return false }
        throw SystemError(operation: "rmdir", path: path, errno: errno)
    }

    /// Refuses a new store (or a backup's destination) at `path` when `path` is a name another
    /// store's folder uses for its own files (`attachments/`, `staging/`, `store.db-wal`…) or
    /// lies inside one: that store's deletion, conversions and checks would take what is there
    /// for theirs or for damage. Said as `StoreError.invalidPath` naming the store, before
    /// anything is asked or created. The path is looked at resolved, and as reached through the
    /// mount showing most of its file system (`MountPoints.widestPath`): one of those folders
    /// bound elsewhere is still that store's.
    static func refuseInsideAnotherStoresFolder(_ path: String) throws {
        let resolved = FileSystem.resolvedPath(path)
        try refuseInsideAnotherStoresFolder(path, resolved: resolved)
        if let widened = MountPoints.widestPath(of: resolved) {
            try refuseInsideAnotherStoresFolder(path, resolved: widened)
        }
    }

    /// `refuseInsideAnotherStoresFolder(_:)` for one absolute form `resolved` of `path`.
    private static func refuseInsideAnotherStoresFolder(_ path: String, resolved: String) throws {
        var folder = resolved
        // Up to the root, or to `.` when the path stays relative (a working directory removed
        // meanwhile: `realpath` fails), whose parent is itself.
        while !folder.isEmpty {
            let parent = FileSystem.parent(of: folder)
            guard parent != folder else { break }
            let name = folder.split(separator: "/").last.map(String.init) ?? folder
            if StoreLayout.isOwned(name) && isProvablyCipherdexStore(StoreLayout(directory: parent)) {
                let place = folder == resolved ? "it is \(folder)" : "it is inside \(folder)"
                throw StoreError.invalidPath(
                    path: path,
                    reason: "\(place), a name the store at \(parent) uses for its own files; give a path "
                        + "outside that store's files")
            }
            folder = parent
        }
    }
}
