import Foundation

/// Checks an unencrypted store's attachment, read whole, against the content hash its row
/// records (FORMAT.md 7.4). The file holds the plaintext itself, with no tag: this hash is what
/// finds a changed byte, as the chunk tags do in an encrypted store.
///
/// A plaintext store's row holds one of these (all unkeyed): the v1 tree (every content since
/// the tree came, on 2026-11-30), the tree's duplicate form for the row's id (a second copy of
/// the same content after a decryption, FORMAT.md 7.4), or, for content added before the tree,
/// BLAKE2b-256 of the whole content. The tree is computed while the content is read; only when
/// it matches neither of the first two is the whole-content hash computed (a second read of the
/// file, which only a store that old needs), and its duplicate form is accepted too, as
/// `tools/cipherdex-recover` does. Nothing here is secret, and anyone who can change the file
/// can change the row: this finds damage, not tampering (only an encrypted store authenticates).
///
/// Unchecked `Sendable`: used by one reader at a time, under the reader's lock.
final class PlainContentCheck: @unchecked Sendable {
    let id: String
    private let recorded: [UInt8]
    private let tree = Sodium.ContentHash(key: nil)

    init(id: String, recordedHash: [UInt8]) {
        self.id = id
        self.recorded = recordedHash
    }

    /// Adds the next piece, hashing its leaves on the other core while `work` runs.
    func update(_ bytes: UnsafeRawBufferPointer, concurrentlyWith work: () throws -> Void) rethrows {
        try tree.update(bytes, concurrentlyWith: work)
    }

    /// Throws `AttachmentError.contentHashMismatch` unless what was added matches the recorded
    /// hash; `wholeContentHash` (BLAKE2b-256 of the whole content, read again) is called only
    /// when the tree does not match.
    func finish(wholeContentHash: () throws -> [UInt8]) throws {
        if accepts(tree.finish()) { return }
        if accepts(try wholeContentHash()) { return }
        throw AttachmentError.contentHashMismatch(id: id)
    }

    private func accepts(_ hash: [UInt8]) -> Bool {
        recorded == hash || recorded == Sodium.ContentHash.duplicateForm(of: hash, id: id, key: nil)
    }
}
