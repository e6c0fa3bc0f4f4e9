#if canImport(Glibc)
    import Glibc
#endif

/// What makes a file or folder itself, whatever path reaches it: its file system (`st_dev`) and
/// inode (`st_ino`). Two paths with the same identity name one folder (a bind mount, a second
/// mount of the same file system), though their strings differ and no link joins them.
struct FileIdentity: Equatable, Sendable {
    /// The file system holding it.
    let device: dev_t
    /// Its inode on that file system.
    let inode: ino_t

    /// The identity of what `path` names, a final symbolic link followed (`stat`); nil when
    /// nothing is there or it cannot be looked at.
    init?(of path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = info.st_dev
        inode = info.st_ino
    }
}
