import Foundation

/// An error reported by SQLite/SQLCipher, carrying its result code and message.
///
/// Messages are SQLite's own (they name tables and columns, never bound values).
public enum DatabaseError: Error, LocalizedError, Equatable, Sendable {
    /// A call returned `code` (primary result code), `extendedCode` and SQLite's message.
    case sqlite(code: Int32, extendedCode: Int32, message: String)

    /// The primary SQLite result code.
    public var code: Int32 {
        switch self {
        case .sqlite(let code, _, _): return code
        }
    }

    /// A one-line description.
    public var errorDescription: String? {
        switch self {
        case .sqlite(let code, let extended, let message):
            return "SQLite error \(code) (extended \(extended)): \(message)"
        }
    }
}
