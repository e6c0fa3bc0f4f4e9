#if canImport(Glibc)
    import Glibc
#endif

/// What is at a path, without following a final symbolic link (`lstat`) and without opening it,
/// so that asking never blocks (a FIFO) or has side effects (a device).
package enum FileKind: Equatable, Sendable {
    /// Nothing is there.
    case missing
    /// A regular file of `size` bytes.
    case regular(size: UInt64)
    case directory
    case symbolicLink
    case fifo
    case socket
    case characterDevice
    case blockDevice
    /// `lstat` failed for another reason than a missing file (its errno).
    case unknown(errno: Int32)

    /// The kind of `path`.
    static func of(_ path: String) -> FileKind {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return errno == ENOENT || errno == ENOTDIR ? .missing : .unknown(errno: errno)
        }
        return FileKind(mode: info.st_mode, size: info.st_size)
    }

    /// The kind an `fstat` of an open descriptor reports.
    package init(mode: mode_t, size: Int) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular(size: UInt64(max(size, 0)))
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .unknown(errno: 0)
        }
    }

    /// Whether something is there.
    var exists: Bool { self != .missing }

    /// Whether this is a regular file.
    var isRegular: Bool {
        if case .regular = self { return true }
        return false
    }

    /// The size of a regular file (nil for anything else).
    var size: UInt64? {
        if case .regular(let size) = self { return size }
        return nil
    }

    /// "a FIFO", "a directory", …: for error messages.
    package var description: String {
        switch self {
        case .missing: return "missing"
        case .regular: return "a regular file"
        case .directory: return "a directory"
        case .symbolicLink: return "a symbolic link"
        case .fifo: return "a FIFO"
        case .socket: return "a socket"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .unknown(let code): return "unreadable (\(String(cString: strerror(code))))"
        }
    }
}
