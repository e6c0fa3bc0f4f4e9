import Foundation

/// Stages an attachment fed piece by piece from async code (where the closure-based
/// `AttachmentStorage.stage` cannot be used across suspension points).
///
/// `Sendable` unchecked because its hash and cipher state are mutable and not thread-safe: the
/// one task that owns it (`Store.addAttachmentAsync(from:)`) hands it to a queue thread for each step
/// and awaits that step before the next (`append`, then `finish` or `abandon`), so two threads
/// never touch it at once, and each await orders one step's writes before the next step's reads.
final class AsyncStagingWriter: @unchecked Sendable {
    private let storage: AttachmentStorage
    private let id: String
    private let path: String
    private let hash: Sodium.ContentHash
    private let encrypted: AttachmentCipherWriter?
    private let plain: FileDescriptor?
    private var length: UInt64 = 0

    init(storage: AttachmentStorage) throws {
        try Store.wrapSystem {
            try FileSystem.createDirectory(storage.layout.staging)
            try FileSystem.createDirectory(storage.layout.attachments)
        }
        self.storage = storage
        id = Sodium.randomBytes(16).map { String(format: "%02x", $0) }.joined()
        path = storage.layout.staging + "/" + id
        hash = Sodium.ContentHash(key: storage.deduplicationKey)
        if let masterKey = storage.masterKey {
            encrypted = try AttachmentCipherWriter(path: path, attachmentID: id, masterKey: masterKey)
            plain = nil
        } else {
            encrypted = nil
            let stagingPath = path
            plain = try Store.wrapSystem {
                try FileDescriptor(path: stagingPath, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
            }
        }
    }

    /// Adds a piece.
    func append(_ piece: Data) throws {
        try piece.withUnsafeBytes { bytes in
            if let encrypted {
                try encrypted.write(bytes, hashing: hash)
            } else {
                try hash.update(bytes) { try plain?.writeAll(bytes) }
            }
        }
        length += UInt64(piece.count)
    }

    /// Completes the staged file.
    func finish() throws -> AttachmentStorage.Staged {
        do {
            if let encrypted { _ = try encrypted.finish(synchronize: true) } else { try plain?.sync() }
        } catch {
            abandon()
            throw error
        }
        return AttachmentStorage.Staged(id: id, path: path, length: length, contentHash: hash.finish())
    }

    /// Deletes the partial file.
    func abandon() {
        unlink(path)
    }
}
