import Foundation

/// Why a path that must hold a regular file (a key file, the metadata file) was refused by
/// `FileDescriptor.openRegularFile(path:limit:)` before anything was read from it. A failed
/// `open` itself is a `SystemError`.
package enum RegularFileError: Error, LocalizedError, Equatable, Sendable {
    /// The path names a directory, FIFO, socket or device; `kind` says which ("a FIFO").
    case notRegularFile(path: String, kind: String)
    /// The file holds more than `limit` bytes.
    case tooLarge(path: String, size: UInt64, limit: Int)
    /// The file's size changed between `fstat` and the end of the read.
    case changedWhileReading(path: String)
    /// The file reports a size of 0 bytes but has content (a /proc or sysfs file, some FUSE
    /// files): how much it holds cannot be known before reading it, so it is not read.
    case sizeUnknown(path: String)

    /// What is wrong, without the path (for errors that name the path themselves).
    package var reason: String {
        switch self {
        case .notRegularFile(_, let kind):
            return kind == FileKind.directory.description ? "is a directory" : "not a regular file (\(kind))"
        case .tooLarge(_, let size, let limit):
            return "larger than \(limit) bytes (\(size) bytes)"
        case .changedWhileReading:
            return "the file changed while it was read"
        case .sizeUnknown:
            return Self.sizeUnknownReason
        }
    }

    /// The path and the reason.
    package var errorDescription: String? {
        switch self {
        case .notRegularFile(let path, _), .tooLarge(let path, _, _), .changedWhileReading(let path),
            .sizeUnknown(let path):
            return "\(path): \(reason)"
        }
    }

    /// The reason `sizeUnknown` gives, shared with the errors that wrap it.
    package static let sizeUnknownReason =
        "its size cannot be known: it reports 0 bytes but has content (a /proc or sysfs file?); "
        + "copy it to a regular file first"
}
