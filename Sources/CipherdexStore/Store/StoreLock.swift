import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The exclusive lock that keeps one `Store` per store directory at a time, across processes and
/// within one (flock locks belong to an open file description). It locks `cipherdex.lock` when
/// the store has one, otherwise the directory itself, and never creates a file on its own.
final class StoreLock: Sendable {
    private struct Held {
        var descriptors: [FileDescriptor] = []
        /// Whether `cipherdex.lock` is among the locked files.
        var holdsLockFile = false
    }

    private let held = Mutex(Held())

    /// Takes the lock for `layout`, or throws `storeLocked`; a lock file that cannot even be
    /// looked at (`EACCES`) is `permissionDenied`, one that is not a regular file `notAStore`.
    /// `readOnly` opens the lock file for reading only (a read-only open writes nothing, and
    /// `flock` needs no write access).
    init(layout: StoreLayout, readOnly: Bool = false) throws {
        try add(path: layout.directory, flags: O_RDONLY | O_DIRECTORY, layout: layout)
        let lockFileKind = FileKind.of(layout.lockFile)
        if case .unknown(let code) = lockFileKind, code != 0 {
            // Not knowing what is there (a folder this process may not search: `EACCES`) is the
            // environment's error, not proof that this is no store.
            throw StoreError.classifying(SystemError(operation: "lstat", path: layout.lockFile, errno: code))
        }
        if lockFileKind.exists {
            guard lockFileKind.isRegular else {
                throw StoreError.notAStore(
                    path: layout.directory,
                    reason: "\(layout.lockFile) is \(lockFileKind.description), not a regular file")
            }
            try add(
                path: layout.lockFile, flags: (readOnly ? O_RDONLY : O_RDWR) | O_NONBLOCK | O_NOFOLLOW, layout: layout)
            held.withLock { $0.holdsLockFile = true }
        }
    }

    /// Creates the lock file of a new store and takes it too (a lock file a killed `create` left
    /// is already held: it is taken once, never through a second descriptor).
    /// A lock file the store's own deletion removed while this lock was held (a create that
    /// finished an interrupted delete) is made again.
    func createLockFile(layout: StoreLayout) throws {
        guard !held.withLock({ $0.holdsLockFile }) || !FileKind.of(layout.lockFile).isRegular else { return }
        try add(path: layout.lockFile, flags: O_RDWR | O_CREAT | O_NOFOLLOW, layout: layout)
        held.withLock { $0.holdsLockFile = true }
    }

    private func add(path: String, flags: Int32, layout: StoreLayout) throws {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor(path: path, flags: flags, mode: 0o600)
        } catch let error as SystemError where error.errno == ENOENT {
            // Seen a moment ago, gone now: another process deleted the store (or its folder)
            // while this one was opening it.
            throw StoreError.notAStore(
                path: layout.directory,
                reason: path == layout.directory || !FileSystem.exists(layout.directory)
                    ? "no such directory (it was removed while the store was being opened)"
                    : "\(path) was removed while the store was being opened (deleted meanwhile?)")
        } catch let error as SystemError {
            throw StoreError.classifying(error)
        }
        guard try Self.lock(descriptor) else {
            throw StoreError.storeLocked(path: layout.directory)
        }
        held.withLock { $0.descriptors.append(descriptor) }
    }

    /// Whether the directory this lock holds is still the one at `path` (not removed, nor
    /// replaced, since its descriptor was opened): a lock taken on a directory that another
    /// process removed meanwhile holds nothing. `followingLinks` for a store's own path, which
    /// may be a symbolic link to its folder.
    func holdsDirectory(at path: String, followingLinks: Bool = false) -> Bool {
        guard let directory = held.withLock({ $0.descriptors.first }), let held = try? directory.status() else {
            return false
        }
        var current = stat()
        guard (followingLinks ? stat(path, &current) : lstat(path, &current)) == 0 else { return false }
        return held.st_dev == current.st_dev && held.st_ino == current.st_ino && held.st_nlink > 0
    }

    /// How long a lock held elsewhere is waited for before `storeLocked`.
    static let contentionWait = Duration.milliseconds(100)

    /// Takes `descriptor`'s lock, trying again every 5 ms for up to `contentionWait`. A process
    /// killed while it started a PDF helper leaves the lock held for a few milliseconds more: a
    /// child that `posix_spawn` made but that has not yet run `exec` holds a copy of every
    /// descriptor, close-on-exec ones included, until its `exec` closes them (the crash harness
    /// saw an open right after such a kill fail with `storeLocked`, and the next one succeed).
    private static func lock(_ descriptor: FileDescriptor) throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: contentionWait)
        while true {
            if try descriptor.tryLockExclusive() { return true }
            guard ContinuousClock.now < deadline else { return false }
            usleep(5_000)
        }
    }

    /// Releases the lock (also done by `deinit`).
    func release() {
        let descriptors = held.withLock { state in
            defer { state = Held() }
            return state.descriptors
        }
        for descriptor in descriptors { descriptor.unlock() }
    }

    deinit {
        release()
    }
}
