import Foundation

/// Failures of a store other than the key: damage, locking, misuse.
public enum StoreError: Error, LocalizedError, Equatable, Sendable {
    /// The key was right (it opened a keyslot) but the database or another file failed to
    /// decrypt or authenticate: the store is damaged, not the key wrong.
    case storeCorrupted(reason: String)
    /// Another process (or another open `Store` in this one) holds the store, or an open or
    /// close of it in this process has not finished: a cancelled `openAsync` returns at once, and
    /// lets go of the lock at once only when it was cancelled before or during its key provider
    /// and key derivation; cancelled later, its abandoned open keeps it until it has closed the
    /// store it opened (or created).
    case storeLocked(path: String)
    /// The path is not a Cipherdex store (and is not an empty or missing directory).
    case notAStore(path: String, reason: String)
    /// The operation needs an encrypted store (key rotation) and this one is not encrypted.
    case notEncrypted(path: String)
    /// The store has been closed.
    case closed
    /// A file or directory of the store cannot be read or written: its permissions, its owner,
    /// or a read-only file system. Nothing is damaged; fix the permissions and retry.
    case permissionDenied(path: String, reason: String)
    /// The disk (or the user's quota) holding the store is full: the write did not happen.
    /// Nothing committed is lost; free space and retry.
    case diskFull(path: String)
    /// A write to `path` would make the file larger than this process may write (`EFBIG`: its
    /// file-size limit, `RLIMIT_FSIZE` / `ulimit -f`, with SIGXFSZ ignored) or than the file
    /// system allows: the write did not happen. Nothing committed is lost; raise the limit and
    /// retry.
    case fileTooLarge(path: String)
    /// The device holding `path` reported an input/output error (`EIO`): the disk or the
    /// file system is failing, not the data's encryption. What was committed before is kept;
    /// check the disk, then retry.
    case ioError(path: String, reason: String)
    /// A mount point is in the way at `path` (another file system, or a folder bound there):
    /// `operation` (`remove`, `move a file to`) was refused, `EBUSY` (a mount point cannot be
    /// removed or replaced) or `EXDEV` (a rename cannot cross one); `reason` says which and what
    /// to do. Nothing on the mounted file system, nor outside the store, was changed.
    case mountPoint(path: String, operation: String, reason: String)
    /// The folder or file at `path` was moved or replaced by another process while `operation`
    /// ran on it (`ESTALE`; on a network file system also: removed by another machine). The
    /// operation stopped there: nothing moved in meanwhile, nor outside the store, was changed.
    /// Run it again. A key change gets it too when the metadata file is no longer the one this
    /// `Store` read or wrote (another writer replaced it): nothing was written, since writing
    /// this instance's stale copy would undo that change; close the store, open it again, retry.
    case changedMeanwhile(path: String, operation: String)
    /// The process or the system ran out of what it needed to use `path`: open files (`EMFILE`,
    /// the process's limit, `RLIMIT_NOFILE` / `ulimit -n`; `ENFILE`, the system's) or memory
    /// (`ENOMEM`, SQLite's `SQLITE_NOMEM`). `reason` says which and what to do. This is not
    /// damage, and nothing committed is lost (an open that fails so changes nothing): free some
    /// (close files or programs, raise the limit), then retry.
    case resourcesExhausted(path: String, reason: String)
    /// A change that replaces a file by a rename (a backup's copy, a key change, a conversion's
    /// switch) is made and in effect at `path`, as `change` says, but the sync of its folder that
    /// would make it survive a power loss failed for `cause` (a full disk, a permission, too many
    /// open files: its case decides the CLI's code and exit status). Do not make the change again;
    /// once the cause is fixed, `sync`. (A failing disk, `EIO`, is `ioError` saying the same.)
    indirect case notDurable(path: String, change: String, cause: StoreError)
    /// The store at `path` is deleted (its metadata is the deletion tombstone: it no longer
    /// opens) but removing its files then failed for `cause` (its case decides the CLI's code
    /// and exit status): its encrypted files remain; delete it again to remove them.
    indirect case deletionIncomplete(path: String, cause: StoreError)
    /// A file operation failed.
    case system(SystemError)
    /// The database reported an error.
    case database(DatabaseError)
    /// `operation` cannot take part in the write transaction (`store.transaction`) or the read
    /// (`store.read`) running on the calling thread (it would wait for that transaction's own
    /// writer lock, or for a reader slot the thread holds); call it after that ends.
    case insideTransaction(operation: String)
    /// `operation` needs a feature this program does not include (the store-only
    /// `CipherdexStore` product opening a store that also holds a search index): the database
    /// records its migrations `versions`. Use the `Cipherdex` product for it.
    case featureUnavailable(operation: String, versions: [Int])
    /// The configured path cannot name a store (`reason`: it is empty, or holds a NUL
    /// character); nothing was looked at or created.
    case invalidPath(path: String, reason: String)
    /// A new store was to be created at `path`, but the folder that would hold it, `parent`,
    /// does not exist: stores are created one folder deep, never with missing parents. Nothing
    /// was created; create `parent` first.
    case parentFolderMissing(path: String, parent: String)
    /// A setting of `StoreConfiguration` (`setting`, such as `maximumReaders`) has a value no
    /// store can use; `reason` gives the allowed range and the value. Thrown before anything
    /// on disk is looked at or created.
    case invalidConfiguration(setting: String, reason: String)

    /// The case's name, as the CLI prints it.
    public var name: String {
        switch self {
        case .storeCorrupted: return "storeCorrupted"
        case .storeLocked: return "storeLocked"
        case .notAStore: return "notAStore"
        case .notEncrypted: return "notEncrypted"
        case .closed: return "closed"
        case .permissionDenied: return "permissionDenied"
        case .diskFull: return "diskFull"
        case .fileTooLarge: return "fileTooLarge"
        case .ioError: return "ioError"
        case .mountPoint: return "mountPoint"
        case .changedMeanwhile: return "changedMeanwhile"
        case .resourcesExhausted: return "resourcesExhausted"
        case .notDurable: return "notDurable"
        case .deletionIncomplete: return "deletionIncomplete"
        case .system: return "system"
        case .database: return "database"
        case .insideTransaction: return "insideTransaction"
        case .featureUnavailable: return "featureUnavailable"
        case .invalidPath: return "invalidPath"
        case .parentFolderMissing: return "parentFolderMissing"
        case .invalidConfiguration: return "invalidConfiguration"
        }
    }

    /// A one-line description.
    public var errorDescription: String? {
        switch self {
        case .storeCorrupted(let reason):
            return "the store is damaged (not a wrong key): \(reason)"
        case .storeLocked(let path):
            return "the store at \(path) is open in another process or instance, or an open or close of it in this "
                + "process is still finishing (such as a cancelled openAsync that got past the key)"
        case .notAStore(let path, let reason):
            return "\(path) is not a Cipherdex store: \(reason)"
        case .notEncrypted(let path):
            return "the store at \(path) is not encrypted: it has no key to change (encrypt it first)"
        case .closed:
            return "the store is closed"
        case .permissionDenied(let path, let reason):
            return "permission denied for \(path): \(reason)"
        case .diskFull(let path):
            return "the disk is full: cannot write \(path) (nothing committed is lost; free some space and retry)"
        case .fileTooLarge(let path):
            return "cannot write \(path): the file would exceed the largest size this process may write "
                + "(its file-size limit, ulimit -f) or the file system allows (nothing committed is lost)"
        case .ioError(let path, let reason):
            return
                "input/output error on \(path): \(reason) (the disk or file system is failing; nothing committed is lost)"
        case .mountPoint(let path, let operation, let reason):
            return "cannot \(operation) \(path): \(reason)"
        case .changedMeanwhile(let path, let operation):
            return
                "cannot \(operation) \(path): another process moved or replaced it while this ran (or, on a network file system, another machine removed it); nothing moved in meanwhile, nor outside the store, was changed; run the command again"
        case .resourcesExhausted(let path, let reason):
            return "cannot use \(path): \(reason) (this is not damage; nothing committed is lost)"
        case .notDurable(let path, let change, let cause):
            return
                "\(change) (\(path)), but it could not be made durable: \(StoreError.cause(of: cause)). The change is "
                + "made: do not make it again; once that is fixed, run sync so that a power loss cannot undo it"
        case .deletionIncomplete(let path, let cause):
            return "the store \(path) is deleted (it no longer opens), but its clean-up is incomplete: "
                + "\(StoreError.cause(of: cause)). Once that is fixed, delete it again to remove any of its encrypted "
                + "files that remain"
        case .system(let error):
            return error.errorDescription
        case .database(let error):
            return error.errorDescription
        case .insideTransaction(let operation):
            return "\(operation) cannot run on a thread inside a transaction or a read of this store "
                + "(store.transaction, store.read); call it after that ends"
        case .featureUnavailable(let operation, let versions):
            let list = versions.map(String.init).joined(separator: ", ")
            return
                "\(operation) needs a feature this program does not include: the store holds its tables (schema versions \(list); search, with the Cipherdex product), which it would have to change (they may keep attachments, and hold content hashes keyed with the data key); the store is unchanged"
        case .invalidPath(let path, let reason):
            return "invalid store path \(path.debugDescription): \(reason)"
        case .parentFolderMissing(let path, let parent):
            return "cannot create a store at \(path): the folder \(parent) does not exist "
                + "(create it first; nothing was created)"
        case .invalidConfiguration(let setting, let reason):
            return "invalid StoreConfiguration.\(setting): \(reason); nothing was opened or created"
        }
    }
}
