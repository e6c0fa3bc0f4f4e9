import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Root running a command on another user's store: the files it writes there (metadata,
/// attachments, a new generation) would be root's, owner-only, and the owner could no longer open
/// the store (`permissionDenied` on every command until root gives them back: environment audit
/// 28). The command is refused before anything is opened; run it as the owner (`sudo -u OWNER`).
enum StoreOwner {
    /// Throws `StoreError.permissionDenied` when this process runs as root and the folder at
    /// `path` (followed through links) belongs to another user; does nothing otherwise (a
    /// missing folder, a store of root's).
    static func refuseRootOnAnotherUsersStore(_ path: String) throws {
        guard geteuid() == 0 else { return }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid != 0 else { return }
        throw StoreError.permissionDenied(
            path: path,
            reason: "the store belongs to user \(info.st_uid) and this command runs as root: the files it would write "
                + "there would be root's, and the owner could no longer open the store; run it as the owner "
                + "(sudo -u \\#\(info.st_uid) cipherdex …)")
    }
}
