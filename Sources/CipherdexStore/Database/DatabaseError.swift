import Foundation

/// An error reported by SQLite/SQLCipher, carrying its result code and message.
///
/// Messages are SQLite's own (they name tables and columns, never bound values).
public enum DatabaseError: Error, LocalizedError, Equatable, Sendable {
    /// A call returned `code` (primary result code), `extendedCode` and SQLite's message;
    /// `systemErrno` is the `errno` of the failed system call behind it (0 when none) and `path`
    /// the database file.
    case sqlite(code: Int32, extendedCode: Int32, message: String, systemErrno: Int32 = 0, path: String = "")

    /// The primary SQLite result code.
    public var code: Int32 {
        switch self {
        case .sqlite(let code, _, _, _, _): return code
        }
    }

    /// The extended SQLite result code.
    public var extendedCode: Int32 {
        switch self {
        case .sqlite(_, let extended, _, _, _): return extended
        }
    }

    /// The `errno` of the system call behind the error (0 when none).
    public var systemErrno: Int32 {
        switch self {
        case .sqlite(_, _, _, let systemErrno, _): return systemErrno
        }
    }

    /// SQLite's message.
    public var message: String {
        switch self {
        case .sqlite(_, _, let message, _, _): return message
        }
    }

    /// The database file the error is about ("" when unknown).
    public var path: String {
        switch self {
        case .sqlite(_, _, _, _, let path): return path
        }
    }

    /// A one-line description: the codes, SQLite's message, the database file when known and,
    /// for a failed open or input/output (`SQLITE_CANTOPEN`, `SQLITE_IOERR`: SQLite's
    /// `unable to open database file` says neither which file nor why), the system call's
    /// `errno` (SQLite keeps it only for those; with any other code it may be an earlier one's).
    public var errorDescription: String? {
        switch self {
        case .sqlite(let code, let extended, let message, let systemErrno, let path):
            let file = path.isEmpty ? "" : " on \(path)"
            let fromSystem = code == Connection.cantOpenCode || code == Connection.ioErrorCode
            let system =
                systemErrno == 0 || !fromSystem
                ? "" : " (\(String(cString: strerror(systemErrno))), errno \(systemErrno))"
            return "SQLite error \(code) (extended \(extended))\(file): \(message)\(system)"
        }
    }
}
