import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The checks an open makes before anything may write: what kind of file each store file is,
/// whether the process may write it, and whether the database decrypts and holds a schema —
/// including what a crash left in its write-ahead log.
extension Store {
    /// Throws `StoreError.parentFolderMissing` when the folder that would hold a new store at
    /// `layout.directory` does not exist (a store is created one folder deep): said before the
    /// key provider is asked, rather than `mkdir`'s bare "No such file or directory".
    static func checkParentFolder(of layout: StoreLayout) throws {
        let parent = FileSystem.parent(of: layout.directory)
        var info = stat()
        if stat(parent, &info) != 0, errno == ENOENT {
            throw StoreError.parentFolderMissing(path: layout.directory, parent: parent)
        }
    }

    /// Refuses a database (or its `-wal`/`-shm`) that is not a regular file, a database too
    /// short to hold a first page, or attachment folders that are not directories, and names
    /// any file the process may not read and write.
    static func checkDatabaseFiles(databasePath: String, layout: StoreLayout, pageSize: Int, writable: Bool = true)
        throws
    {
        let write = writable ? W_OK : 0
        let kind = FileKind.of(databasePath)
        guard kind.exists else { throw StoreError.storeCorrupted(reason: "the database file is missing") }
        guard let size = kind.size else {
            throw StoreError.storeCorrupted(reason: "\(databasePath) is \(kind.description), not a regular file")
        }
        // Creation checkpoints the schema into the file before the metadata exists, so the
        // database of a store always holds at least its first page.
        guard size >= UInt64(pageSize) else {
            throw StoreError.storeCorrupted(
                reason: "the database file \(databasePath) is \(size == 0 ? "empty" : "truncated to \(size) bytes")")
        }
        try checkAccess(layout.directory, mode: write | X_OK)
        try checkAccess(databasePath, mode: R_OK | write)
        for companion in [databasePath + "-wal", databasePath + "-shm", databasePath + "-journal"] {
            let companionKind = FileKind.of(companion)
            guard companionKind.exists else { continue }
            guard companionKind.isRegular else {
                throw StoreError.storeCorrupted(
                    reason: "\(companion) is \(companionKind.description), not a regular file")
            }
            try checkAccess(companion, mode: R_OK | write)
        }
        for folder in [layout.attachments, layout.staging] { try checkFolder(folder, writable: writable) }
    }

    /// Refuses an `attachments/` or `staging/` that is there but is not a directory (a file, a
    /// FIFO, a link to anything but a directory: a link to one is a normal deployment), and
    /// names one the process may not write.
    static func checkFolder(_ path: String, writable: Bool = true) throws {
        var kind = FileKind.of(path)
        guard kind.exists else { return }
        if kind == .symbolicLink {
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw StoreError.storeCorrupted(reason: "\(path) is a symbolic link to nothing, not a directory")
            }
            kind = FileKind(mode: info.st_mode, size: 0)
        }
        guard kind == .directory else {
            throw StoreError.storeCorrupted(reason: "\(path) is \(kind.description), not a directory")
        }
        try checkAccess(path, mode: R_OK | (writable ? W_OK : 0) | X_OK)
    }

    /// Throws `permissionDenied` naming `path` when the process may not access it in `mode`, or
    /// when `mode` includes writing and no write permission bit of `path` is set: `access`
    /// lets root write a file or folder made read-only on purpose (`chmod a-w`), and every open
    /// writes, so root is refused it like any other user rather than writing it (and `restrictModes`
    /// making it writable again).
    static func checkAccess(_ path: String, mode: Int32) throws {
        if access(path, mode) != 0 {
            throw StoreError.permissionDenied(path: path, reason: String(cString: strerror(errno)))
        }
        var info = stat()
        if mode & W_OK != 0, stat(path, &info) == 0, info.st_mode & 0o222 == 0 {
            let bits = String(info.st_mode & 0o7777, radix: 8)
            throw StoreError.permissionDenied(
                path: path, reason: "it is read-only (mode \(bits)); make it writable (chmod u+w) to open the store")
        }
    }

    /// The `cipherdex_settings` row holding the id of the store a database belongs to, the same as
    /// its metadata's `storeID` (FORMAT.md section 6): what tells another store's `store.db` put in
    /// place of this one's, which nothing else does in an unencrypted store.
    static let storeIDSetting = "store.id"

    /// Verifies the database with the data key and returns the migrations it records and whether
    /// it records its store's id (`cipherdex_settings` `store.id`: not in a database made before
    /// it was kept). A recorded id other than `storeID` (the metadata's) is `storeCorrupted`:
    /// another store's database put in this one's place. Writes nothing a failed open could leave
    /// behind:
    /// - page 1 is read through an immutable connection (no lock, no `-shm`, no WAL): a wrong
    ///   data key fails here (and, without a log, a damaged header);
    /// - without a write-ahead log, the schema is read the same way;
    /// - with one (a crash left committed transactions in it), an immutable connection would see
    ///   the main file alone, mid-checkpoint perhaps, so a read-only connection reads the schema
    ///   through the log. It rebuilds the log's index in `-shm` and never writes the database or
    ///   the log; when it fails, `-shm` is put back byte for byte (or removed if it was not
    ///   there) by `WALCompanions`. First the log is read frame by frame (`WriteAheadLogScan`):
    ///   a damaged frame with committed transactions after it, or a damaged header in front of
    ///   committed frames, is `storeCorrupted`, where SQLite would drop them.
    ///
    /// `check` judges the recorded migrations (a newer build's: `unsupportedScheme`) while `-shm`
    /// can still be put back: a refusal there changes no file either (upgrade audit 28).
    static func verifiedSchemaVersions(
        databasePath: String, key: SecureBytes?, cipher: CipherSettings?, storeID: String,
        check: (Set<Int>) throws -> Void = { _ in }
    ) throws -> (versions: Set<Int>, recordsStoreID: Bool) {
        func recorded(_ connection: Connection) throws -> (versions: Set<Int>, recordsStoreID: Bool) {
            let versions = try Migrator.recordedVersions(of: connection)
            guard versions.contains(1) else { return (versions, false) }
            let row: SQLValue?
            do {
                row = try connection.scalar(
                    "SELECT value FROM cipherdex_settings WHERE name = ?", [.text(storeIDSetting)])
            } catch let error as DatabaseError where StoreError.classifyingEnvironment(error) == nil {
                // A damaged page there is damage for `verify` to name; the store still opens, as
                // it did before the id was kept (its other tables may be read, exported).
                return (versions, true)
            }
            guard let recorded = row?.textValue else { return (versions, false) }
            guard recorded == storeID else {
                throw StoreError.storeCorrupted(
                    reason: "\(databasePath) belongs to another store (store id \(recorded)), not to the store "
                        + "\(storeID) its metadata names: put this store's database back, or restore from a backup")
            }
            return (versions, true)
        }
        let walSize = FileKind.of(databasePath + "-wal").size ?? 0
        do {
            let pageCheck = try Connection(path: databasePath, mode: .verifyOnly, key: key, cipher: cipher)
            if walSize == 0 {
                let result = try recorded(pageCheck)
                try check(result.versions)
                return result
            }
        } catch let error as DatabaseError where walSize > 0 && error.code != Connection.notADatabaseCode {
            // Page 1 decrypted but the main file alone is inconsistent (a checkpoint killed
            // part-way leaves a first page that counts pages not yet copied): the log decides.
        }
        // Before SQLite's recovery reads the log: it would end the log at a damaged frame and
        // drop the committed transactions after it.
        let pageSize = (cipher ?? .default).pageSize
        if let damage = try wrapSystem({
            try WriteAheadLogScan.damage(ofLogAt: databasePath + "-wal", pageSize: pageSize)
        }) {
            throw StoreError.storeCorrupted(reason: damage.reason(log: databasePath + "-wal"))
        }
        try checkDatabaseCoversLog(databasePath: databasePath)
        let companions = try WALCompanions(databasePath: databasePath)
        do {
            let probe = try Connection(path: databasePath, mode: .readOnlyProbe, key: key, cipher: cipher)
            defer { probe.close() }
            let result = try recorded(probe)
            try check(result.versions)
            return result
        } catch {
            try companions.restore()
            throw error
        }
    }

    /// Refuses a database whose recorded migrations are none (creation writes the schema before
    /// the metadata: a store's database always has one) or a newer build's (`unsupportedScheme`).
    static func checkRecorded(_ versions: Set<Int>, configuration: StoreConfiguration) throws {
        guard !versions.isEmpty else {
            throw StoreError.storeCorrupted(reason: "the database holds no Cipherdex schema")
        }
        try configuration.checkSupported(recordedVersions: versions)
    }

    /// Throws `storeCorrupted` when the database file is shorter than the database the log
    /// leaves and the log does not hold the pages missing from it (the file was cut short after
    /// the crash): the open would go on to a writer that copies the log into the damaged file and
    /// removes the log before it finds the damage. A file that is short only by pages the log
    /// holds is what a checkpoint killed part-way leaves (it writes them in order, growing the
    /// file), not damage.
    static func checkDatabaseCoversLog(databasePath: String) throws {
        guard let committed = try wrapSystem({ try WriteAheadLogScan.committedPages(ofLogAt: databasePath + "-wal") })
        else { return }
        let pageSize = committed.pageSize
        let size = FileKind.of(databasePath).size ?? 0
        let filePages = Int((size + UInt64(pageSize) - 1) / UInt64(pageSize))
        // The page holding the lock bytes at 1 GiB is never written (nor logged) by SQLite: a file
        // short of it only is whole.
        let lockBytePage = 0x4000_0000 / pageSize + 1
        guard filePages < committed.databasePages,
            let missing = (filePages + 1...committed.databasePages).first(where: {
                $0 != lockBytePage && !committed.pages.contains(UInt32(truncatingIfNeeded: $0))
            })
        else { return }
        throw StoreError.storeCorrupted(
            reason: "the database file \(databasePath) is cut short (\(size) bytes): page \(missing) of the "
                + "\(committed.databasePages) its write-ahead log leaves is in neither it nor the log; the store was "
                + "not opened and nothing was changed. Restore it from a backup")
    }

    /// Gives every file and directory of an opened store owner-only modes (0600 and 0700),
    /// whatever the umask or an older version left.
    func restrictModes() throws {
        try Store.wrapSystem {
            try FileSystem.restrictMode(layout.directory, to: 0o700)
            for name in FileSystem.contents(of: layout.directory) where StoreLayout.isOwned(name) {
                let path = layout.directory + "/" + name
                switch FileKind.of(path) {
                case .directory: try FileSystem.restrictMode(path, to: 0o700)
                case .regular: try FileSystem.restrictMode(path, to: 0o600)
                default: continue
                }
            }
        }
    }
}

extension FileSystem {
    /// Clears `path`'s permission bits that `mode` does not have (a symbolic link is left
    /// alone). Bits are only ever taken away: a file made read-only on purpose stays so.
    static func restrictMode(_ path: String, to mode: mode_t) throws {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFLNK else { return }
        let restricted = info.st_mode & 0o7777 & mode
        guard info.st_mode & 0o7777 != restricted else { return }
        try FileDescriptor.retrying(operation: "chmod", path: path) { chmod(path, restricted) }
    }
}

/// The state of a database's `-wal` and `-shm` before an open touches them, so that a failed
/// open can put them back: `-shm` (a derived index, small) byte for byte or removed when it was
/// not there, and a `-wal` the failed open created, while it is still empty, removed.
struct WALCompanions {
    private let walPath: String
    private let shmPath: String
    private let walExisted: Bool
    private let savedIndex: [UInt8]?

    /// Records the companions of `databasePath` as they are now; an index that cannot be
    /// saved (over 1 GiB) is `storeCorrupted` naming it, before anything is written.
    init(databasePath: String) throws {
        walPath = databasePath + "-wal"
        shmPath = databasePath + "-shm"
        walExisted = FileKind.of(walPath).exists
        do {
            savedIndex = FileKind.of(shmPath).isRegular ? try FileSystem.readRegularFile(shmPath, limit: 1 << 30) : nil
        } catch let error as RegularFileError {
            // An index over 1 GiB (a sparse giant) or one changing under us is no store's.
            throw StoreError.storeCorrupted(reason: "\(shmPath): \(error.reason)")
        }
    }

    /// Puts the companions back (call only once every connection to the database is closed).
    func restore() throws {
        if !walExisted, FileKind.of(walPath).size == 0 {
            try FileSystem.removeFile(walPath)
        }
        guard let savedIndex else {
            try FileSystem.removeFile(shmPath)
            return
        }
        let file = try FileDescriptor(path: shmPath, flags: O_WRONLY | O_NOFOLLOW)
        try FileDescriptor.retrying(operation: "ftruncate", path: shmPath) {
            ftruncate(file.rawValue, off_t(savedIndex.count))
        }
        try file.writeAll(savedIndex)
    }
}
