extension StoreConfiguration {
    /// Throws for a configuration no store can be opened with, before anything on disk is looked
    /// at or created: `StoreError.invalidPath` for an empty path (or one holding a NUL character,
    /// which the system would cut short there), `StoreError.invalidConfiguration` for
    /// `maximumReaders` below 1 or a negative `cacheSizeKiB`, `KeyError.unsupportedCost` for a
    /// `passphraseCost` no open would accept from a keyslot (it would only fail later, at the
    /// first `addKey`, `rekey` or conversion that seals a passphrase slot with it).
    func validate() throws {
        if path.isEmpty { throw StoreError.invalidPath(path: path, reason: "the path is empty") }
        if path.utf8.contains(0) {
            throw StoreError.invalidPath(path: path, reason: "the path contains a NUL character")
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
