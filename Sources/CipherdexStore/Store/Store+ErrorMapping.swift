import Foundation

/// How the errors of the layers below become `StoreError`s.
extension Store {
    /// What a database error during open means: the environment (a full disk, permissions,
    /// another process, a failing disk) when it is about that or when the files cannot be read
    /// (`environmentalCause`), damage otherwise.
    /// The message names the database file, and its write-ahead log when one is there (a log
    /// of another store, or damaged, fails the same way).
    static func openFailure(_ error: DatabaseError, encrypted: Bool, databasePath: String) -> StoreError {
        if let environment = StoreError.classifyingEnvironment(error) { return environment }
        if let environment = environmentalCause(of: error, databasePath: databasePath) { return environment }
        let log =
            (FileKind.of(databasePath + "-wal").size ?? 0) > 0 ? " (or its write-ahead log \(databasePath)-wal)" : ""
        if error.code == Connection.notADatabaseCode {
            return .storeCorrupted(
                reason: encrypted
                    ? "the database \(databasePath)\(log) does not decrypt or authenticate with the store's data key"
                    : "the database file \(databasePath)\(log) is not a valid SQLite database")
        }
        return .storeCorrupted(
            reason: "the database \(databasePath)\(log) reports: \(error.errorDescription ?? "unknown error")")
    }

    /// Runs a file operation, turning `SystemError` into `StoreError` (`permissionDenied`,
    /// `diskFull` or `system`).
    static func wrapSystem<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SystemError {
            throw StoreError.classifying(error)
        }
    }

    /// Runs `body`, turning `DatabaseError` into `StoreError.database`.
    package static func mappingDatabaseErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StoreError.classifying(error)
        }
    }
}
