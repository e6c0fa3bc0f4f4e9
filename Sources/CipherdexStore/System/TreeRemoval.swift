import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The walk of `FileSystem.removeTree`: empties an open directory depth first, without
/// recursion and with a bounded number of open directory descriptors at any depth.
///
/// Every folder is entered with `openat(O_NOFOLLOW | O_DIRECTORY)` relative to its parent's
/// descriptor, and its device and inode are recorded. Only the deepest `openLimit` folders keep
/// their descriptors; an ancestor whose descriptor was closed is opened again, on the way back
/// up, as `..` of its (open) child, and must be the very folder recorded when it was entered
/// (same `st_dev` and `st_ino`): a folder moved or replaced meanwhile stops the walk with an
/// error, and nothing is ever removed elsewhere. A symbolic link is removed itself, never
/// followed; a folder on another file system, or listed as a mount point, is never entered.
struct TreeRemoval {
    /// The operation named by the `ESTALE` error for a folder replaced, at its name, once emptied.
    static let replacedOperation = "rmdir (the folder was replaced meanwhile)"
    /// The operation named by the `ESTALE` error for an ancestor moved or replaced while the walk
    /// was below it.
    static let movedOperation = "open (the folder was moved or replaced meanwhile)"

    /// One folder on the path from the top to where the walk is.
    private struct Level {
        /// Its descriptor; nil while closed to keep the number of open descriptors bounded.
        var directory: FileDescriptor?
        /// Its name in the folder above (empty for the top).
        let name: [UInt8]
        /// Its device and inode when it was entered.
        let device: dev_t
        let inode: ino_t
        /// The names in it still to remove.
        var pending: [[UInt8]]
        /// How much of `display` and `resolved` its path takes.
        let displayLength: Int
        let resolvedLength: Int
    }

    /// The folders from the top down to the one being emptied.
    private var levels: [Level] = []
    /// The index of the shallowest level whose descriptor is open: those from there down are
    /// open, those above closed.
    private var firstOpen = 0
    /// The path of the deepest level as shown in errors (names that are not UTF-8 escaped).
    private var display: [UInt8]
    /// The resolved path of the deepest level, compared with the mount points.
    private var resolved: [UInt8]
    /// The device of the top folder: nothing on another is entered.
    private let device: dev_t
    /// The mount points at or below the top.
    private let mounts: Set<String>
    /// The most directory descriptors kept open at once (one more is open for a moment while
    /// a folder is listed).
    private let openLimit: Int

    /// Prepares the walk of the folder `top`, opened for `path` (whose resolved path is
    /// `resolved`) and handed over (the walk closes it when it must); `expected` is what `lstat`
    /// said of `path` before it was opened, and `top` must be that folder. `mounts` are the
    /// mount points at or below it.
    init(
        top: FileDescriptor, expected: stat, path: String, resolved: String, mounts: Set<String>, openLimit: Int
    ) throws {
        try Self.requireIdentity(of: top, device: expected.st_dev, inode: expected.st_ino)
        self.display = Array(path.utf8)
        self.resolved = Array(resolved.utf8)
        self.device = expected.st_dev
        self.mounts = mounts
        self.openLimit = max(openLimit, 1)
        levels.append(
            Level(
                directory: top, name: [], device: expected.st_dev, inode: expected.st_ino,
                pending: try FileSystem.entryNames(of: top), displayLength: display.count,
                resolvedLength: self.resolved.count))
    }

    /// Removes everything inside the top folder (depth first, links not followed); an entry
    /// that vanished meanwhile is skipped. `entered` is called after each folder is entered (a
    /// test counts the open descriptors there).
    mutating func removeContents(entered: () -> Void) throws {
        while let index = levels.indices.last {
            if let name = levels[index].pending.popLast() {
                if try enter(name, in: index) { entered() }
            } else if index == 0 {
                levels.removeAll()
            } else {
                try leave(index)
            }
        }
    }

    /// The path of `name` inside the deepest level, as shown in errors.
    private func displayPath(of name: [UInt8]) -> String {
        String(decoding: display, as: UTF8.self) + "/" + DirectoryEntries.escaped(name)
    }

    /// Removes the entry `name` of the deepest level (`index`) when it is not a folder; enters
    /// it when it is (returns true then).
    private mutating func enter(_ name: [UInt8], in index: Int) throws -> Bool {
        guard let directory = levels[index].directory else { preconditionFailure("the deepest level is open") }
        var info = stat()
        guard Self.withName(name, { fstatat(directory.rawValue, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0 else {
            if errno == ENOENT { return false }
            throw SystemError(operation: "fstatat", path: displayPath(of: name), errno: errno)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            guard Self.withName(name, { unlinkat(directory.rawValue, $0, 0) }) == 0 || errno == ENOENT else {
                throw SystemError(operation: "unlink", path: displayPath(of: name), errno: errno)
            }
            return false
        }
        let resolvedEntry = resolved + [UInt8(ascii: "/")] + name
        // Never into another file system mounted inside (its mount point stays, and so the
        // folders holding it).
        let isMountPoint = !mounts.isEmpty && mounts.contains(String(decoding: resolvedEntry, as: UTF8.self))
        if info.st_dev != device || isMountPoint {
            throw SystemError(operation: "rmdir", path: displayPath(of: name), errno: EBUSY)
        }
        let component = Array(("/" + DirectoryEntries.escaped(name)).utf8)
        let path = String(decoding: display + component, as: UTF8.self)
        let raw: Int32
        do {
            raw = try FileDescriptor.retrying(operation: "open", path: path) {
                Self.withName(name) { openat(directory.rawValue, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            }
        } catch let error as SystemError where error.errno == ENOENT {
            return false
        }
        let child = FileDescriptor(adopting: raw, path: path)
        // What was opened is what was looked at (not a folder swapped in, nor a mount point).
        try Self.requireIdentity(of: child, device: info.st_dev, inode: info.st_ino)
        let names = try FileSystem.entryNames(of: child)
        display += component
        resolved = resolvedEntry
        levels.append(
            Level(
                directory: child, name: name, device: info.st_dev, inode: info.st_ino, pending: names,
                displayLength: display.count, resolvedLength: resolved.count))
        while levels.count - firstOpen > openLimit {
            levels[firstOpen].directory = nil
            firstOpen += 1
        }
        return true
    }

    /// Removes the emptied folder at the deepest level (`index`, not the top) from its parent,
    /// opening the parent again first when its descriptor was closed.
    private mutating func leave(_ index: Int) throws {
        let level = levels[index]
        guard let child = level.directory else { preconditionFailure("the deepest level is open") }
        let parentIndex = index - 1
        if levels[parentIndex].directory == nil {
            let parentPath = String(decoding: display.prefix(levels[parentIndex].displayLength), as: UTF8.self)
            let raw = try FileDescriptor.retrying(operation: "open", path: parentPath) {
                openat(child.rawValue, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let parent = FileDescriptor(adopting: raw, path: parentPath)
            try Self.requireIdentity(of: parent, device: levels[parentIndex].device, inode: levels[parentIndex].inode)
            levels[parentIndex].directory = parent
            firstOpen = parentIndex
        }
        guard let parent = levels[parentIndex].directory else { preconditionFailure("just opened") }
        let path = String(decoding: display, as: UTF8.self)
        // The name must still be the folder emptied (not one moved in meanwhile).
        var info = stat()
        if Self.withName(level.name, { fstatat(parent.rawValue, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0 {
            guard info.st_dev == level.device && info.st_ino == level.inode else {
                throw SystemError(operation: Self.replacedOperation, path: path, errno: ESTALE)
            }
            guard Self.withName(level.name, { unlinkat(parent.rawValue, $0, AT_REMOVEDIR) }) == 0 || errno == ENOENT
            else {
                throw SystemError(operation: "rmdir", path: path, errno: errno)
            }
        } else if errno != ENOENT {
            throw SystemError(operation: "fstatat", path: path, errno: errno)
        }
        levels.removeLast()
        display.removeLast(display.count - levels[parentIndex].displayLength)
        resolved.removeLast(resolved.count - levels[parentIndex].resolvedLength)
    }

    /// Throws unless the open `directory` is the folder with `device` and `inode`: one moved or
    /// replaced since it was looked at is never emptied (`ESTALE`, naming it).
    private static func requireIdentity(of directory: FileDescriptor, device: dev_t, inode: ino_t) throws {
        var info = stat()
        try FileDescriptor.retrying(operation: "fstat", path: directory.path) { fstat(directory.rawValue, &info) }
        guard info.st_dev == device && info.st_ino == inode else {
            throw SystemError(operation: Self.movedOperation, path: directory.path, errno: ESTALE)
        }
    }

    /// Calls `body` with `name` as a NUL-terminated C string.
    private static func withName<T>(_ name: [UInt8], _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        try (name + [0]).withUnsafeBufferPointer { bytes in
            try bytes.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }
}
