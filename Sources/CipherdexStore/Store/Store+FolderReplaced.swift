extension Store {
    /// `open(_:)`, giving up before the database is touched once `cancellation` is set (checked
    /// after the key derivation, the slow part).
    ///
    /// The folder an open locks must still be the one at the path: while the open waited for the
    /// lock, a `delete` may have removed it (the open then held a lock on a removed folder, and a
    /// create failed with an untyped "no such file": multi-process audit 28), or a backup or
    /// restore renamed its copy over the empty folder. The open then looks again, once; a
    /// second replacement is `StoreError.changedMeanwhile`.
    static func open(_ configuration: StoreConfiguration, cancellation: WorkCancellation?) throws -> Store {
        do {
            return try openOnce(configuration, cancellation: cancellation)
        } catch is FolderReplaced {
            do {
                return try openOnce(configuration, cancellation: cancellation)
            } catch is FolderReplaced {
                throw StoreError.changedMeanwhile(path: configuration.path, operation: "open")
            }
        }
    }

    /// The folder a store operation locked is no longer the one at its path (removed, or another
    /// folder renamed over it), found before anything was written or removed.
    struct FolderReplaced: Error {}
}
