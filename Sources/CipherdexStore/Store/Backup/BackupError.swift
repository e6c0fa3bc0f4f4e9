import Foundation

/// Why a backup or a restore did not happen. The destination is as it was: absent, the empty
/// directory it was, or the previous backup (what a failed attempt wrote beside it is removed).
/// The environment's failures keep `StoreError`'s cases (`diskFull`, `permissionDenied`,
/// `ioError`, `storeLocked` when the destination is open elsewhere).
public enum BackupError: Error, LocalizedError, Equatable, Sendable {
    /// The destination exists and is neither an empty directory nor a store: a file, a FIFO, a
    /// device, a link, or a directory holding other files.
    case destinationNotAStore(path: String, reason: String)
    /// The destination holds a store that is not a backup of this one (another store, or one
    /// whose data key has changed since): a backup replaces only its own earlier backups.
    case destinationIsAnotherStore(path: String)
    /// A restore's destination already holds a store and replacing it was not confirmed.
    case destinationExists(path: String)
    /// The destination is the store itself or lies inside its folder (or the store lies inside
    /// the destination), however its path reaches it (a link, a bind mount): a copy there would
    /// be taken for the store's own files.
    case destinationOverlapsStore(path: String, store: String)
    /// The file system holding the destination has fewer bytes free than the backup needs.
    case insufficientSpace(path: String, neededBytes: UInt64, availableBytes: UInt64)
    /// The progress handler returned false, or the task was cancelled.
    case cancelled
    /// The copy did not check out before it was made current (the destination keeps its
    /// previous state).
    case verificationFailed(reason: String)
    /// The destination was missing or empty when the backup started, and something else (another
    /// backup, a `create`, another program) filled it, or holds its lock (a `create` asking for
    /// its key), before the copy could take its place: it is left as that made it, and this copy
    /// is removed.
    case destinationFilledMeanwhile(path: String)
    /// The destination is an empty directory that is a mount point (another file system, a
    /// bind mount): a new backup is built beside it and renamed into place, which cannot be done
    /// onto a mount point. Nothing was written; give a folder inside it.
    case destinationIsMountPoint(path: String)

    /// The case's name, as the CLI prints it.
    public var name: String {
        switch self {
        case .destinationNotAStore: return "destinationNotAStore"
        case .destinationIsAnotherStore: return "destinationIsAnotherStore"
        case .destinationExists: return "destinationExists"
        case .destinationOverlapsStore: return "destinationOverlapsStore"
        case .insufficientSpace: return "insufficientSpace"
        case .cancelled: return "cancelled"
        case .verificationFailed: return "verificationFailed"
        case .destinationFilledMeanwhile: return "destinationFilledMeanwhile"
        case .destinationIsMountPoint: return "destinationIsMountPoint"
        }
    }

    /// One line naming the path; never key material.
    public var errorDescription: String? {
        switch self {
        case .destinationNotAStore(let path, let reason):
            return "\(path) cannot receive the copy: \(reason) (a backup goes to a new path, an empty directory "
                + "or an earlier backup; a restore to a new path, an empty directory or a store it may replace)"
        case .destinationIsAnotherStore(let path):
            return "\(path) holds a store that is not a backup of this one; it is left as it is"
        case .destinationExists(let path):
            return "\(path) already holds a store; confirm to replace it (replacingExistingStore; --yes in the CLI)"
        case .destinationOverlapsStore(let path, let store):
            return "\(path) overlaps the store \(store) (one inside the other); give a path outside it"
        case .insufficientSpace(let path, let needed, let available):
            return "\(path) needs \(needed) bytes free for what it would write, \(available) are available; "
                + "nothing was changed"
        case .cancelled:
            return "the backup was cancelled; the destination is as it was"
        case .verificationFailed(let reason):
            return "the backup copy failed its check (\(reason)); the destination is as it was"
        case .destinationFilledMeanwhile(let path):
            return "\(path) was filled, or is being made a store, by something else (another backup, a create, "
                + "another program) while the backup ran; "
                + "it is left as it is and this copy was removed"
        case .destinationIsMountPoint(let path):
            return "\(path) is a mount point: a new copy is built beside it and moved into place, which cannot be "
                + "done onto another file system; give a folder inside it, such as \(path)/backup (nothing was written)"
        }
    }
}
