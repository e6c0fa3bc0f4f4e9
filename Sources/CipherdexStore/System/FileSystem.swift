import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Crash-safe file operations on paths: atomic replacement, durable renames and removal.
package enum FileSystem {
    /// Whether anything (file, directory, link) exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Whether something is where `path` leads, its links followed (`stat`): false for a link to
    /// nothing.
    static func followedExists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// What the symbolic link at `path` holds (`readlink`), or nil when it is not one.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `path` is a directory.
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Flushes a directory's entries (after a create, rename or unlink inside it).
    static func syncDirectory(_ path: String) throws {
        try FileDescriptor(path: path, flags: O_RDONLY | O_DIRECTORY).sync()
    }

    /// Creates a directory (mode 0700) if it does not exist, and syncs its parent.
    static func createDirectory(_ path: String) throws {
        if isDirectory(path) { return }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw SystemError(operation: "mkdir", path: path, errno: errno)
        }
        try syncDirectory(parent(of: path))
    }

    /// Replaces `path` with `bytes` atomically: a temporary file beside it, fsync, rename over the
    /// target, fsync of the directory. A crash at any instant leaves the old or the new content.
    /// An error before the rename leaves the old content and no temporary file; an error after
    /// it (the directory's fsync) leaves the new content in place, not known to be durable.
    /// `faultPoint` is a fault-injection point for tests.
    static func writeAtomically(
        _ bytes: [UInt8], to path: String, mode: mode_t = 0o600,
        faultPoint: (AtomicWriteStep) throws -> Void = { _ in }
    ) throws {
        let directory = parent(of: path)
        let temporary = path + ".tmp-" + Sodium.randomBytes(6).map { String(format: "%02x", $0) }.joined()
        do {
            let file = try FileDescriptor(path: temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: mode)
            try file.writeAll(bytes)
            try faultPoint(.temporaryWritten)
            try file.sync()
            try faultPoint(.temporarySynced)
        } catch {
            // Only a real error (not an injected crash) cleans up; a crash leaves the temp file.
            if !(error is InjectedFault) { unlink(temporary) }
            throw error
        }
        do {
            try rename(temporary, to: path)
        } catch {
            // Not renamed: the temporary file is ours and unneeded.
            unlink(temporary)
            throw error
        }
        // From here the new file is in place: a caller that sees an error must not assume the
        // old content is still current (read the file again to know).
        try faultPoint(.renamed)
        try syncDirectory(directory)
    }

    /// Renames atomically (same directory or file system).
    static func rename(_ source: String, to destination: String) throws {
        try FileDescriptor.retrying(operation: "rename", path: destination) { Glibc.rename(source, destination) }
    }

    /// Removes a file if present.
    static func removeFile(_ path: String) throws {
        if unlink(path) != 0 && errno != ENOENT {
            throw SystemError(operation: "unlink", path: path, errno: errno)
        }
    }

    /// Removes a directory tree if present, never following a symbolic link: a link, at `path`
    /// or anywhere inside, is removed itself, never what it points to. The walk (`TreeRemoval`)
    /// opens each folder with `openat(O_NOFOLLOW)` and removes with `unlinkat`, so a failure is
    /// a `SystemError` with the real `errno` (`EACCES` for a folder this process may not empty,
    /// `EIO`…) naming the entry it failed on; what was removed before it stays removed. At most
    /// `openLimit` directory descriptors are open at once, however deep the tree (a deeper
    /// folder's ancestors are opened again on the way back up, and must be the very folders
    /// entered). A folder mounted inside (another file system, or a bind mount) stops the walk
    /// with `EBUSY` naming it, and nothing on it is touched. `entered` is called after each
    /// folder is entered (for tests).
    static func removeTree(_ path: String, openLimit: Int = 32, entered: () -> Void = {}) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return }
            throw SystemError(operation: "lstat", path: path, errno: errno)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            try removeFile(path)
            return
        }
        // Another file system mounted here (a bind mount of a folder elsewhere too) is not
        // emptied, what is on it may be anyone's, and a mount point cannot be removed: it is left
        // as it is.
        var parent = stat()
        if lstat(FileSystem.parent(of: path), &parent) == 0 && parent.st_dev != info.st_dev { return }
        let resolved = resolvedPath(path)
        let mounts = MountPoints.atOrBelow(resolved)
        if mounts.contains(resolved) { return }
        var walk = try TreeRemoval(
            top: FileDescriptor(path: path, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW), expected: info, path: path,
            resolved: resolved, mounts: mounts, openLimit: openLimit)
        try walk.removeContents(entered: entered)
        if rmdir(path) != 0 && errno != ENOENT {
            throw SystemError(operation: "rmdir", path: path, errno: errno)
        }
    }

    /// The names (raw bytes, without `.` and `..`) in the open directory `directory`, read
    /// through a duplicate of its descriptor so that `directory` stays open and unmoved.
    static func entryNames(of directory: FileDescriptor) throws -> [[UInt8]] {
        let copy = try FileDescriptor.retrying(operation: "dup", path: directory.path) {
            fcntl(directory.rawValue, F_DUPFD_CLOEXEC, 0)
        }
        guard let stream = fdopendir(copy) else {
            let code = errno
            close(copy)
            throw SystemError(operation: "fdopendir", path: directory.path, errno: code)
        }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SystemError(operation: "readdir", path: directory.path, errno: errno) }
                return names
            }
            let name: [UInt8] = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
    }

    /// The names in the directory `path`, or the error that kept them from being read (unlike
    /// `contents(of:)`, which says "none" then): for deciding what to remove.
    static func entries(of path: String) throws -> [String] {
        let directory = try FileDescriptor(path: path, flags: O_RDONLY | O_DIRECTORY)
        return try entryNames(of: directory).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Names in a directory (empty when it does not exist).
    static func contents(of directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    /// Size in bytes of a file, or nil when it does not exist.
    static func size(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt64(info.st_size)
    }

    /// Bytes an unprivileged process may still write on the file system holding `path`.
    static func availableBytes(at path: String) throws -> UInt64 {
        var info = statvfs()
        try FileDescriptor.retrying(operation: "statvfs", path: path) { statvfs(path, &info) }
        let bytes = UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize))
        return bytes.overflow ? UInt64.max : bytes.partialValue
    }

    /// Whether the file system holding `path` is mounted read-only (false when that cannot be
    /// told).
    static func isOnReadOnlyFileSystem(_ path: String) -> Bool {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }

    /// Whether the file system holding `path` has no block or no inode left for a new file
    /// (false when that cannot be told). SQLite's failed create of a `-wal` retries read-only,
    /// which loses the create's `errno`: this tells a full disk from damage afterwards.
    static func hasNoRoomForNewFiles(at path: String) -> Bool {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return false }
        return info.f_bavail == 0 || (info.f_files > 0 && info.f_favail == 0)
    }

    /// `path` made absolute with every symbolic link and `.`/`..` of its existing part resolved
    /// (`realpath` of the longest existing prefix, the rest appended as written): two paths that
    /// name the same place compare equal, though the place need not exist yet.
    package static func resolvedPath(_ path: String) -> String {
        var existing = path.isEmpty ? "." : path
        var rest: [String] = []
        while true {
            if let resolved = realpath(existing, nil) {
                defer { free(resolved) }
                let base = String(cString: resolved)
                let tail = rest.reversed().filter { !$0.isEmpty && $0 != "." }
                return tail.isEmpty ? base : (base == "/" ? "" : base) + "/" + tail.joined(separator: "/")
            }
            let trimmed = existing.hasSuffix("/") && existing.count > 1 ? String(existing.dropLast()) : existing
            let parent = parent(of: trimmed)
            guard parent != trimmed else { return path }
            rest.append(String(trimmed.split(separator: "/", omittingEmptySubsequences: false).last ?? ""))
            existing = parent
        }
    }

    /// Whether `path` is `directory` or lies anywhere below it, however each is reached: both
    /// resolved (`resolvedPath`), then through the mount showing most of their file system
    /// (`MountPoints.widestPath`: a folder inside `directory` bound elsewhere), then by identity
    /// (`isWithinByIdentity`: `directory`, or a folder holding it, bound elsewhere, even when the
    /// mount list cannot be read).
    package static func isWithin(_ path: String, _ directory: String) -> Bool {
        let inner = resolvedPath(path)
        let outer = resolvedPath(directory)
        func contains(_ outer: String, _ inner: String) -> Bool {
            inner == outer || inner.hasPrefix(outer == "/" ? "/" : outer + "/")
        }
        if contains(outer, inner) { return true }
        if contains(MountPoints.widestPath(of: outer) ?? outer, MountPoints.widestPath(of: inner) ?? inner) {
            return true
        }
        return isWithinByIdentity(inner, outer)
    }

    /// Whether the folder `directory` is `path` or one of the folders above it, told by identity
    /// (`FileIdentity`), whatever path reaches each: false when `directory` cannot be looked at.
    static func isWithinByIdentity(_ path: String, _ directory: String) -> Bool {
        guard let folder = FileIdentity(of: directory) else { return false }
        var ancestor = path
        while true {
            if FileIdentity(of: ancestor) == folder { return true }
            let next = parent(of: ancestor)
            guard next != ancestor else { return false }
            ancestor = next
        }
    }

    /// The folder part of a path.
    /// (Foundation's `deletingLastPathComponent` traps on one-character paths on Linux.)
    static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}

/// The steps of `FileSystem.writeAtomically` at which a test may inject a crash.
enum AtomicWriteStep: Sendable, CaseIterable {
    /// The temporary file holds the new content but is not synced.
    case temporaryWritten
    /// The temporary file is durable; the target still holds the old content.
    case temporarySynced
    /// The rename happened; the directory is not yet synced.
    case renamed
}

/// Thrown by a test's fault point to simulate a process killed at that step.
struct InjectedFault: Error {}
