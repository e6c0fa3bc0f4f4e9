#if canImport(Glibc)
    import Glibc
#endif

/// What tells that an open file was written to between two looks at it: its size, modification
/// time and change time (the last cannot be set back, as `rsync --inplace` or `touch` set the
/// modification time back). Taken with `fstat` before and after a file is read: a difference
/// means what was read may mix the file's old and new content.
package struct FileChangeStamp: Equatable, Sendable {
    /// The size in bytes.
    package let size: Int
    private let modified: [Int]
    private let changed: [Int]

    /// The stamp of `info`, an `fstat` of the file.
    init(_ info: stat) {
        size = Int(info.st_size)
        modified = [Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
        changed = [Int(info.st_ctim.tv_sec), Int(info.st_ctim.tv_nsec)]
    }

    /// The stamp of the open `file` now.
    package init(of file: FileDescriptor) throws {
        self.init(try file.status())
    }
}
