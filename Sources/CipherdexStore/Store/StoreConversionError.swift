import Foundation

/// Why a re-encryption or conversion did not happen. The store is unchanged: the old
/// generation is current and nothing of the new one is left.
public enum StoreConversionError: Error, LocalizedError, Equatable, Sendable {
    /// The progress handler returned false, or the synchronous call ran in a task that was
    /// cancelled (the async forms, `reencryptAsync` and the others, throw `CancellationError`).
    case cancelled
    /// The file system has fewer bytes free than the new generation needs.
    case insufficientSpace(path: String, neededBytes: UInt64, availableBytes: UInt64)
    /// `encrypt` was asked of a store that is encrypted already.
    case alreadyEncrypted(path: String)
    /// `attachments/` or `staging/` is a link to a folder elsewhere, or another file system's
    /// mount point: the new copies would be written inside the store's folder, and the old ones
    /// where the folder really is could not be removed safely (another store may share them).
    case dataFolderElsewhere(path: String)
    /// `path`, in the attachments folder, is a file no attachment records, and nothing proves it
    /// the store's own (an attachment of this store, authenticated with its key): copied into the
    /// new generation as it is it would stay readable without the key, or with the old one, and
    /// it is not the store's to remove. Move it out of the store's folder (or remove it), then
    /// convert again.
    case unrecordedAttachmentFile(path: String, reason: String)

    /// One line, never key material.
    public var errorDescription: String? {
        switch self {
        case .cancelled:
            return "the conversion was cancelled; nothing was converted"
        case .insufficientSpace(let path, let needed, let available):
            return "\(path) needs \(needed) bytes free for the new copy of the store, \(available) are available; "
                + "nothing was converted"
        case .alreadyEncrypted(let path):
            return "\(path) is encrypted already (use reencrypt for a new data key)"
        case .dataFolderElsewhere(let path):
            return "\(path) is a link to a folder elsewhere or a mount point: move its files into the store's folder "
                + "(a folder there) before converting the store; nothing was converted"
        case .unrecordedAttachmentFile(let path, let reason):
            return "\(path) is in the store's attachments folder but no attachment records it, and \(reason): "
                + "move it out of the store's folder before converting the store; nothing was converted"
        }
    }
}
