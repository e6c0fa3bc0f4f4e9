import Foundation

extension AttachmentStorage {
    /// Copies attachment `id` from `source` (another generation, with the old keys) into this
    /// storage's folder: decrypted with the old keys (or read as is from a plaintext store),
    /// authenticated, and sealed again with this storage's keys and a fresh per-file salt (or
    /// written plain). Returns the content hash under this storage's deduplication key, which
    /// replaces the old one in the new database. `progress` gets each piece's size and may
    /// throw to stop; the partial file is then removed. The new file is synced.
    ///
    /// A plaintext source has no tags: what is read is checked against `recordedHash` (its row's
    /// `content_hash`), and content that does not match throws
    /// `AttachmentError.contentHashMismatch` before its last piece is written, rather than being
    /// sealed (and so authenticated) as it is.
    func copy(
        _ id: String, from source: AttachmentStorage, recordedLength: UInt64, recordedHash: [UInt8],
        progress: (Int) throws -> Void
    ) throws -> [UInt8] {
        let reader = try AttachmentReader(
            id: id, path: source.readablePath(of: id), masterKey: source.masterKey, recordedLength: recordedLength,
            recordedContentHash: source.masterKey == nil ? recordedHash : nil)
        guard reader.length == recordedLength else {
            throw AttachmentError.truncated(id: id, expectedBytes: recordedLength, actualBytes: reader.length)
        }
        let target = path(of: id)
        let hash = Sodium.ContentHash(key: deduplicationKey)
        do {
            if let masterKey {
                let writer = try AttachmentCipherWriter(path: target, attachmentID: id, masterKey: masterKey)
                try reader.forEachChunk { piece in
                    try writer.write(piece, hashing: hash)
                    try progress(piece.count)
                }
                _ = try writer.finish(synchronize: true)
            } else {
                let file = try Store.wrapSystem {
                    try FileDescriptor(path: target, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
                }
                try reader.forEachChunk { piece in
                    try hash.update(piece, concurrentlyWith: { try file.writeAll(piece) })
                    try progress(piece.count)
                }
                try Store.wrapSystem { try file.sync() }
            }
        } catch {
            unlink(target)
            throw Self.typedWriteFailure(error, path: target)
        }
        return hash.finish()
    }

    /// Seals the unrecorded files `files` of `source` (authenticated by
    /// `Store.unrecordedAttachmentFiles(known:)`) again into this storage's folder, under their
    /// names, as `copy` does a recorded attachment: they stay unrecorded (`verify` keeps naming
    /// them), and no file of the new generation is readable with the old keys.
    func sealAgain(
        unrecorded files: [(name: String, length: UInt64)], from source: AttachmentStorage,
        progress: (Int) throws -> Void
    ) throws {
        for file in files {
            _ = try copy(file.name, from: source, recordedLength: file.length, recordedHash: [], progress: progress)
        }
    }
}
