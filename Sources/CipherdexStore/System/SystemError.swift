import Foundation

/// A system call that failed, with the operation, the path it was about and `errno`.
public struct SystemError: Error, LocalizedError, Equatable, Sendable {
    /// The system call or step that failed, such as `open` or `rename`.
    public let operation: String
    /// The file the call was about.
    public let path: String
    /// The `errno` value the call left.
    public let errno: Int32

    /// Creates an error for `operation` on `path` with the given `errno`.
    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// A one-line description with the system's wording of `errno`.
    public var errorDescription: String? {
        "\(operation) failed for \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
