import Foundation

/// What a conversion (`encrypt`, `reencrypt`, `decrypt`) gives each feature's
/// `StoreFeature.contentKeyChanged` hook: the deduplication key changes with the data key, so
/// whatever a feature keyed with it (the search index's content hashes, FORMAT.md 5) must be
/// keyed again. The hook runs on the new generation's database, in the transaction that writes
/// the attachments' new content hashes, before that database is checked, synced and switched
/// to: everything it writes is in the new generation before the switch, and a crash before the
/// switch leaves the old generation as it was.
///
/// The keys stay in the store: the feature asks for hashes. Each is BLAKE2b-256 of the whole
/// content keyed with a deduplication key (unkeyed in an unencrypted store) — a plain hash, not
/// the tree of `attachments.content_hash`.
package struct ContentKeyChange {
    /// The new generation's database, inside the transaction (do not commit or roll back).
    package let connection: Connection
    let oldKey: SecureBytes?
    let newKey: SecureBytes?
    /// The new generation's attachment files.
    let attachments: AttachmentStorage

    /// The hash under the new key of attachment `id`'s content, read (and authenticated) from
    /// the new generation's file; nil when the new generation has no such attachment.
    package func newContentHash(ofAttachment id: String) throws -> [UInt8]? {
        guard AttachmentStorage.isValidID(id),
            let length = try connection.scalar("SELECT length FROM attachments WHERE id = ?", [.text(id)])?
                .integerValue
        else { return nil }
        let reader = try AttachmentReader(
            id: id, path: attachments.path(of: id), masterKey: attachments.masterKey,
            recordedLength: UInt64(max(0, length)))
        let hash = Sodium.StreamingHash(key: newKey)
        try reader.forEachChunk { hash.update($0) }
        return hash.finish()
    }

    /// The hashes under the old and the new key of the regular file at `path` (a file outside
    /// the store that a feature indexed in place), read once; nil when it cannot be read (gone,
    /// not a regular file, no permission) or changed while it was read.
    package func contentHashes(ofFileAt path: String) -> (old: [UInt8], new: [UInt8])? {
        guard let (file, size) = try? FileDescriptor.openRegularFile(path: path, limit: Int.max) else { return nil }
        let old = Sodium.StreamingHash(key: oldKey)
        let new = Sodium.StreamingHash(key: newKey)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        while offset < size {
            let count = min(buffer.count, size - offset)
            let complete = buffer.withUnsafeMutableBytes { raw -> Bool in
                let slice = UnsafeMutableRawBufferPointer(rebasing: raw[0..<count])
                guard (try? AttachmentFileIO.read(file.rawValue, into: slice, at: UInt64(offset), id: path)) == count
                else { return false }
                old.update(UnsafeRawBufferPointer(slice))
                new.update(UnsafeRawBufferPointer(slice))
                return true
            }
            guard complete else { return nil }
            offset += count
        }
        guard (try? file.status().st_size) == off_t(size) else { return nil }
        return (old.finish(), new.finish())
    }
}
