import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why a file named on the command line cannot be read as a document or attachment, said the way
/// a person would look for it: missing, a folder, a FIFO or device, a loop of links, a permission.
enum InputFileCheck {
    /// Nil when `path` is a readable regular file (a link to one counts); otherwise the reason.
    static func problem(with path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            switch errno {
            case ENOENT: return "no such file"
            case ELOOP: return "a loop of symbolic links"
            case EACCES: return "permission denied"
            default: return String(cString: strerror(errno))
            }
        }
        switch FileKind(mode: info.st_mode, size: 0) {
        case .regular: break
        case .directory: return "a folder, not a file (`cipherdex index` takes a folder)"
        case let kind: return "\(kind.description), not a regular file"
        }
        guard access(path, R_OK) == 0 else { return "not readable: \(String(cString: strerror(errno)))" }
        return nil
    }

    /// The error for an input file that cannot be opened with `errno` `code`, the same for every
    /// command that reads one (`attach`, `doc put`): a missing file is `sourceNotFound` (exit 1),
    /// a permission `permissionDenied` (exit 17), anything else `io` with its reason.
    static func openFailure(_ path: String, errno code: Int32, reason: String? = nil) -> Error {
        let reason = reason ?? String(cString: strerror(code))
        switch code {
        case ENOENT:
            return CLIError.failed(code: "sourceNotFound", message: "cannot read \(path): no such file")
        case EACCES, EPERM:
            return StoreError.permissionDenied(path: path, reason: reason)
        default:
            return CLIError.failed(code: "io", message: "cannot read \(path): \(reason)")
        }
    }

    /// Whether `path` cannot be read for lack of permission (on it, or on a folder above it).
    static func isPermissionDenied(_ path: String) -> Bool {
        var info = stat()
        if stat(path, &info) != 0 { return errno == EACCES }
        return access(path, R_OK) != 0 && (errno == EACCES || errno == EPERM)
    }
}
