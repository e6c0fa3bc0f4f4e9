internal import CSQLCipher
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Names why a write to the store failed, saying "disk full" plainly whichever layer reported
/// it: SQLCipher (`SQLITE_FULL`), attachment staging or a system call (`ENOSPC`, `EDQUOT`),
/// wrapped in a `StoreError` or not.
enum StoreWriteFailure {
    /// Whether `error` says the disk (or the user's quota) is full.
    static func isDiskFull(_ error: Error) -> Bool {
        switch error {
        case let error as DatabaseError:
            return error.code == SQLITE_FULL
        case let error as SystemError:
            return isDiskFull(errno: error.errno)
        case let error as AttachmentError:
            if case .io(_, _, let code) = error { return isDiskFull(errno: code) }
            return false
        case let error as StoreError:
            switch error {
            case .system(let underlying): return isDiskFull(underlying)
            case .database(let underlying): return isDiskFull(underlying)
            default: return error.name == "diskFull"
            }
        default:
            return false
        }
    }

    /// A one-line reason for a failed write: `disk full (<details>)` for a full disk, otherwise
    /// the error's own description.
    static func reason(for error: Error) -> String {
        // The typed case already says "the disk is full": name only the path, once.
        if case .diskFull(let path)? = error as? StoreError { return "disk full (cannot write \(path))" }
        let description = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
        return isDiskFull(error) ? "disk full (\(description))" : description
    }

    private static func isDiskFull(errno code: Int32) -> Bool {
        code == ENOSPC || code == EDQUOT
    }
}
