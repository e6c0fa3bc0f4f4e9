#if canImport(Glibc)
    import Glibc
#endif

/// What in the environment made an open fail that SQLite reports as damage or as a file it
/// cannot open: a failing disk is not a damaged store, and README asks a user told of damage
/// to restore from a backup.
extension Store {
    /// The bytes read of the database and of its write-ahead log to see that they can be read:
    /// a first page (the largest page size), a log's header.
    private static let databaseProbeLength = 65_536
    private static let logHeaderLength = 32

    /// The environment's error behind `error`, met while opening the database at `databasePath`,
    /// or nil when the files can be read and (for `SQLITE_CANTOPEN`) nothing names a cause:
    /// - the first page of the database, or the header of its write-ahead log when there is one,
    ///   cannot be opened or read: that system call's error (`ioError` for `EIO`);
    /// - `SQLITE_CANTOPEN`: the folder may not be written (`permissionDenied`) or has no room
    ///   for a new file (`diskFull`); else an unexplained `ioError` — never damage, since the
    ///   files are there and read.
    static func environmentalCause(of error: DatabaseError, databasePath: String) -> StoreError? {
        let log = databasePath + "-wal"
        let files = [(databasePath, databaseProbeLength)] + (FileKind.of(log).exists ? [(log, logHeaderLength)] : [])
        for (path, length) in files {
            if let failure = readFailure(path: path, length: length) { return StoreError.classifying(failure) }
        }
        guard error.code == Connection.cantOpenCode else { return nil }
        let folder = FileSystem.parent(of: databasePath)
        if access(folder, W_OK | X_OK) != 0 {
            return .permissionDenied(path: folder, reason: String(cString: strerror(errno)))
        }
        if FileSystem.hasNoRoomForNewFiles(at: folder) { return .diskFull(path: folder) }
        return .ioError(
            path: databasePath,
            reason: "SQLite could not open it or its write-ahead log \(log), though they are there, readable and "
                + "their folder writable (\(error.errorDescription ?? "unable to open database file")); the store "
                + "is not damaged by it")
    }

    /// The failed system call when `path` cannot be opened for reading or its first `length`
    /// bytes (fewer in a shorter file) read; nil when they can.
    private static func readFailure(path: String, length: Int) -> SystemError? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return SystemError(operation: "open", path: path, errno: errno) }
        defer {
            // Read-only: a failed close loses nothing.
            _ = Glibc.close(descriptor)
        }
        var buffer = [UInt8](repeating: 0, count: length)
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, length, 0) }
            if count >= 0 { return nil }
            if errno != EINTR { return SystemError(operation: "read", path: path, errno: errno) }
        }
    }
}
