import Foundation

extension StoreConfiguration {
    /// The longest path SQLite's unix file system layer opens (`MAX_PATHNAME`, 512 with its NUL;
    /// a relative path is made absolute from the working folder first).
    static let longestDatabasePath = 511
    /// The longest store folder path whose database files all open: its longest name,
    /// `store.999999999.db-journal`, after a slash.
    static let longestDirectoryPath = longestDatabasePath - "/store.999999999.db-journal".utf8.count

    /// Throws for a configuration no store can be opened with, before anything on disk is looked
    /// at or created: `StoreError.invalidPath` for an empty path (or one holding a NUL character,
    /// which the system would cut short there, or one too long for SQLite to open its files),
    /// `StoreError.invalidConfiguration` for `maximumReaders` below 1 or a negative
    /// `cacheSizeKiB`, `KeyError.unsupportedCost` for a `passphraseCost` no open would accept from a keyslot (it would only fail later, at the
    /// first `addKey`, `rekey` or conversion that seals a passphrase slot with it).
    func validate() throws {
        if path.isEmpty { throw StoreError.invalidPath(path: path, reason: "the path is empty") }
        if path.utf8.contains(0) {
            throw StoreError.invalidPath(path: path, reason: "the path contains a NUL character")
        }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        guard absolute.utf8.count <= Self.longestDirectoryPath else {
            throw StoreError.invalidPath(
                path: path,
                reason: "it is \(absolute.utf8.count) bytes long as an absolute path, and SQLite opens no file whose "
                    + "path is longer than \(Self.longestDatabasePath) bytes: a store's folder may be at most "
                    + "\(Self.longestDirectoryPath) bytes")
        }
        guard maximumReaders >= 1 else {
            throw StoreError.invalidConfiguration(
                setting: "maximumReaders", reason: "it must be at least 1 (it is \(maximumReaders))")
        }
        guard cacheSizeKiB >= 0 else {
            throw StoreError.invalidConfiguration(
                setting: "cacheSizeKiB", reason: "it must be 0 or more (it is \(cacheSizeKiB))")
        }
        try Keyslot.checkAccepted(passphraseCost)
    }
}
