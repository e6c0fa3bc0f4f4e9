import Foundation

/// Why `Store.export(to:)` refused or stopped.
public enum ExportError: Error, LocalizedError, Equatable, Sendable {
    /// The destination exists and is not an empty directory: an export never mixes with or
    /// replaces other files.
    case destinationNotEmpty(path: String)
    /// The destination lies inside the store's folder, however its path reaches it (a link, a
    /// bind mount of the store's folder or of a folder in or above it): plaintext there would
    /// sit among the store's own files.
    case destinationInsideStore(path: String, store: String)
    /// A file or directory of the export could not be created or written.
    case cannotWrite(path: String, reason: String)

    /// A one-line description naming the path.
    public var errorDescription: String? {
        switch self {
        case .destinationNotEmpty(let path):
            return "\(path) exists and is not an empty directory; export writes only into a new or empty one"
        case .destinationInsideStore(let path, let store):
            return "\(path) is inside the store \(store); export writes plaintext only outside it"
        case .cannotWrite(let path, let reason):
            return "cannot write \(path): \(reason)"
        }
    }
}
