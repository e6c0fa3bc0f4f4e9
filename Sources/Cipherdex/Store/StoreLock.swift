#if canImport(Glibc)
    import Glibc
#endif

/// The exclusive lock that keeps one `Store` per store directory at a time, across processes and
/// within one (flock locks belong to an open file description). It locks `cipherdex.lock` when
/// the store has one, otherwise the directory itself, and never creates a file on its own.
final class StoreLock {
    private var descriptors: [FileDescriptor] = []

    /// Takes the lock for `layout`, or throws `storeLocked`.
    init(layout: StoreLayout) throws {
        try add(path: layout.directory, flags: O_RDONLY | O_DIRECTORY, layout: layout)
        if FileSystem.exists(layout.lockFile) {
            try add(path: layout.lockFile, flags: O_RDWR, layout: layout)
        }
    }

    /// Creates the lock file of a new store and takes it too.
    func createLockFile(layout: StoreLayout) throws {
        try add(path: layout.lockFile, flags: O_RDWR | O_CREAT, layout: layout)
    }

    private func add(path: String, flags: Int32, layout: StoreLayout) throws {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor(path: path, flags: flags, mode: 0o600)
        } catch let error as SystemError {
            throw StoreError.system(error)
        }
        guard try descriptor.tryLockExclusive() else {
            throw StoreError.storeLocked(path: layout.directory)
        }
        descriptors.append(descriptor)
    }

    /// Releases the lock (also done by `deinit`).
    func release() {
        for descriptor in descriptors { descriptor.unlock() }
        descriptors.removeAll()
    }

    deinit {
        release()
    }
}
