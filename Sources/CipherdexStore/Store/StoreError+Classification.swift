#if canImport(Glibc)
    import Glibc
#endif

extension StoreError {
    /// What went wrong in `error`, for the reason of another error that wraps it: an `ioError`'s
    /// own path and reason, without the advice its description ends with (the wrapping error's
    /// description adds it once).
    static func cause(of error: Error) -> String {
        switch error as? StoreError {
        case .ioError(let path, let reason)?: return "\(path): \(reason)"
        case .diskFull(let path)?: return "the disk is full (cannot write \(path))"
        default: return error.localizedDescription
        }
    }

    /// The error of a change made and in effect at `path` (its rename happened; `change` says
    /// what is in effect) whose folder's sync then failed with `error`: `notDurable` keeping a
    /// typed cause (a full disk, a permission, too many open files), `ioError` for a failing disk
    /// or any other cause — never the cause alone, which would say nothing was changed.
    static func notDurable(_ error: Error, path: String, change: String) -> StoreError {
        let typed = (error as? SystemError).map { classifying($0) } ?? error as? StoreError
        switch typed {
        case .ioError?, .system?, .database?, nil:
            return .ioError(
                path: path, reason: "\(change), but could not be made durable: \(cause(of: typed ?? error))")
        case let cause?:
            return .notDurable(path: path, change: change, cause: cause)
        }
    }

    /// The typed form of a failed system call: no permission (or a read-only file system), a
    /// full disk (or quota), a file-size limit (`EFBIG`), a device's input/output error, a
    /// mount point in the way (`EBUSY` on removing or replacing it, `EXDEV` on a rename across
    /// one) and too many open files or too little memory (`EMFILE`, `ENFILE`, `ENOMEM`) get
    /// their own cases, naming the path; anything else stays `system`.
    package static func classifying(_ error: SystemError) -> StoreError {
        switch error.errno {
        case EMFILE, ENFILE, ENOMEM:
            return resourcesExhausted(errno: error.errno, path: error.path, failure: "\(error.operation) failed")
        case EACCES, EPERM, EROFS:
            return .permissionDenied(path: error.path, reason: String(cString: strerror(error.errno)))
        case ENOSPC, EDQUOT:
            return .diskFull(path: error.path)
        case EFBIG:
            return .fileTooLarge(path: error.path)
        case EIO:
            return .ioError(path: error.path, reason: "\(error.operation) failed: \(String(cString: strerror(EIO)))")
        case EBUSY:
            return .mountPoint(
                path: error.path, operation: action(of: error.operation),
                reason: "it is a mount point or in use by the system (\(String(cString: strerror(EBUSY)))); "
                    + "unmount it, then retry")
        case EXDEV:
            return .mountPoint(
                path: error.path, operation: action(of: error.operation),
                reason:
                    "it and its source are on different mounts (\(String(cString: strerror(EXDEV)))): a file or folder "
                    + "of the store is on another file system or a bind mount; keep the store's folders on one file system, "
                    + "then retry")
        case ESTALE:
            return .changedMeanwhile(path: error.path, operation: action(of: error.operation))
        default:
            return .system(error)
        }
    }

    /// `resourcesExhausted` naming `path` for `code` (`EMFILE`, `ENFILE`; anything else is taken
    /// for `ENOMEM`): which resource ran out and what to do; `failure` says what failed ("open
    /// failed").
    static func resourcesExhausted(errno code: Int32, path: String, failure: String) -> StoreError {
        let reason: String
        switch code {
        case EMFILE:
            var limit = rlimit()
            let known =
                getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur != rlim_t.max
            let value = known ? String(limit.rlim_cur) : "reached"
            reason =
                "this process has too many files open (its limit, ulimit -n, is \(value)): close some or raise the limit, "
                + "then retry"
        case ENFILE:
            reason =
                "the system has too many files open (its limit, fs.file-max, is reached): close some files or programs, "
                + "then retry"
        default:
            reason =
                "not enough memory: close some programs or raise this process's memory limit (ulimit -v), then retry"
        }
        return .resourcesExhausted(path: path, reason: "\(failure): \(reason)")
    }

    /// What a system call named `operation` was doing to its path, in words (the path of a
    /// `rename` or `link` is its destination).
    private static func action(of operation: String) -> String {
        switch operation {
        case "rename": return "move a file to"
        case "link": return "link a file as"
        case "unlink", "rmdir", "remove", TreeRemoval.replacedOperation: return "remove"
        case TreeRemoval.movedOperation: return "open"
        default: return operation
        }
    }

    /// The typed form of a database error that is about the environment rather than the data:
    /// a full disk, a file-size limit, missing permissions, a failing device (`EIO` behind an `SQLITE_IOERR`),
    /// too many open files or too little memory (`EMFILE`, `ENFILE`, `ENOMEM` behind an
    /// `SQLITE_CANTOPEN` or `SQLITE_IOERR`; `SQLITE_NOMEM`), another process's lock. Nil for
    /// anything else.
    static func classifyingEnvironment(_ error: DatabaseError) -> StoreError? {
        let path = error.path.isEmpty ? "the database" : error.path
        let systemFailure = error.code == Connection.ioErrorCode || error.code == Connection.cantOpenCode
        if systemFailure, [EMFILE, ENFILE, ENOMEM].contains(error.systemErrno) {
            return resourcesExhausted(
                errno: error.systemErrno, path: path, failure: "SQLite could not use it (\(error.message))")
        }
        switch error.systemErrno {
        case ENOSPC, EDQUOT: return .diskFull(path: path)
        case EFBIG: return .fileTooLarge(path: path)
        case EACCES, EPERM, EROFS:
            return .permissionDenied(path: path, reason: String(cString: strerror(error.systemErrno)))
        case EIO where systemFailure:
            return .ioError(path: path, reason: "the database reports: \(error.errorDescription ?? "I/O error")")
        default: break
        }
        switch error.code {
        case Connection.fullCode:
            return .diskFull(path: path)
        case Connection.noMemoryCode:
            return resourcesExhausted(errno: ENOMEM, path: path, failure: "SQLite could not allocate memory")
        case Connection.cantOpenCode
        where FileSystem.hasNoRoomForNewFiles(at: error.path.isEmpty ? "." : FileSystem.parent(of: error.path)):
            return .diskFull(path: path)
        case Connection.readOnlyCode where error.extendedCode == Connection.readOnlyRollbackCode:
            // Not a permission: a journal beside a database in write-ahead-log mode, which
            // Cipherdex never writes (another program's, or a file put there).
            return .storeCorrupted(
                reason: "a rollback journal \(path)-journal is beside the database, which is in write-ahead-log "
                    + "mode; Cipherdex writes none: move it out of the store's folder")
        case Connection.readOnlyCode:
            return .permissionDenied(path: path, reason: "the database cannot be written")
        case let code where Connection.busyCodes.contains(code):
            return .storeLocked(path: FileSystem.parent(of: path))
        default:
            return nil
        }
    }

    /// The typed form of a database error met while reading the pages of the store's database
    /// at `database` (a backup's copy, an export): a page that does not decrypt or authenticate
    /// (SQLCipher 3 reports `SQLITE_ERROR` for it) or is malformed is `storeCorrupted` naming
    /// the file; the environment's cases as `classifyingEnvironment`; anything else `database`.
    package static func classifyingPageRead(_ error: DatabaseError, database: String, encrypted: Bool) -> StoreError {
        if let environment = classifyingEnvironment(error) { return environment }
        let damaged =
            error.code == Connection.corruptCode || error.code == Connection.notADatabaseCode
            || (encrypted && error.code == Connection.errorCode)
        guard damaged else { return .database(error) }
        return .storeCorrupted(
            reason: "a page of the database \(database) does not decrypt, authenticate or parse "
                + "(\(error.errorDescription ?? "unreadable page")); `verify` names what is damaged")
    }

    /// The typed form of any database error: the environment's cases; damage (a malformed page,
    /// a page that does not authenticate) is `storeCorrupted`; else `database`.
    package static func classifying(_ error: DatabaseError) -> StoreError {
        if let environment = classifyingEnvironment(error) { return environment }
        if error.code == Connection.corruptCode || error.code == Connection.notADatabaseCode {
            return .storeCorrupted(reason: "the database reports: \(error.errorDescription ?? "damage")")
        }
        return .database(error)
    }
}
