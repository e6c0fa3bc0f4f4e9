extension Store {
    /// Removes the database files and attachment folders of every generation but `layout`'s:
    /// what an interrupted re-encryption or conversion left (the new generation before its
    /// switch, or the old one after it). Called only once the key and the metadata naming the
    /// current generation are verified, with the store's lock held; the metadata is
    /// authenticated, so a file of another generation is provably unneeded.
    static func removeOtherGenerations(layout: StoreLayout) throws {
        var removed = false
        for name in FileSystem.contents(of: layout.directory) {
            guard let generation = generationOfDataFile(name), generation != layout.generation else { continue }
            let path = layout.directory + "/" + name
            if FileSystem.isDirectory(path) {
                // A link to a folder elsewhere goes, never what it points to: another store (a
                // copy made with `cp -a`) may share that folder. Only the store's own files in
                // it go (`removeOwnedFolder`).
                try removeOwnedFolder(path)
            } else {
                try FileSystem.removeFile(path)
            }
            removed = true
        }
        if removed { try FileSystem.syncDirectory(layout.directory) }
    }

    /// The generation a database file, its journal or WAL, or an attachments folder belongs to
    /// (0 for `store.db…` and `attachments`); nil for any other name.
    static func generationOfDataFile(_ name: String) -> Int? {
        if ["store.db", "store.db-wal", "store.db-shm", "store.db-journal", "attachments"].contains(name) { return 0 }
        return StoreLayout.generation(of: name)
    }

    /// Whether `name` is a database file or its WAL of some generation (`store.db`, `store.N.db`
    /// and their `-wal`): a store's data, even when its metadata is missing.
    static func isDatabaseOfAnyGeneration(_ name: String) -> Bool {
        guard generationOfDataFile(name) != nil, !name.hasPrefix("attachments") else { return false }
        return !name.hasSuffix("-shm") && !name.hasSuffix("-journal")
    }
}
