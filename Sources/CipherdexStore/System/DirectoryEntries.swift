import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The entries of one directory, read with `opendir`/`readdir`, with names as raw bytes
/// (Foundation drops or mangles names that are not valid UTF-8), each with what `stat` says
/// of it (following a symbolic link).
package struct DirectoryEntries {
    /// What an entry is.
    package enum Kind: Equatable {
        case regularFile
        case directory
        /// Anything else: a device, socket, FIFO, or a link that leads nowhere.
        case other
    }

    /// One entry (never `.` or `..`).
    package struct Entry {
        /// The name's bytes.
        package let name: [UInt8]
        /// What it is, a link's target for a symbolic link.
        package let kind: Kind
        /// Whether it is a symbolic link.
        package let isSymbolicLink: Bool
        /// Size in bytes.
        package let size: Int64
        /// Modification time, seconds since 1970.
        package let modified: Double
    }

    /// The directory's path bytes.
    let path: [UInt8]
    /// Its entries, in `readdir` order.
    package let entries: [Entry]

    /// Reads the directory at `path` (bytes, no terminating NUL); throws `SystemError` when it
    /// cannot be opened or read (EACCES, ENAMETOOLONG, …).
    package init(path: [UInt8]) throws {
        self.path = path
        let display = String(decoding: path, as: UTF8.self)
        guard let directory = (path + [0]).withUnsafeBufferPointer({ bytes in
            bytes.withMemoryRebound(to: CChar.self) { opendir($0.baseAddress!) }
        }) else {
            throw SystemError(operation: "opendir", path: display, errno: errno)
        }
        defer { closedir(directory) }
        let descriptor = dirfd(directory)
        var entries: [Entry] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw SystemError(operation: "readdir", path: display, errno: errno) }
                break
            }
            let name: [UInt8] = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            var info = stat()
            let isLink = entry.pointee.d_type == UInt8(DT_LNK)
                || (entry.pointee.d_type == UInt8(DT_UNKNOWN) && Self.lstatIsLink(descriptor, name))
            let found = (name + [0]).withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { fstatat(descriptor, $0.baseAddress!, &info, 0) }
            } == 0
            let kind: Kind
            switch (found, info.st_mode & S_IFMT) {
            case (true, S_IFREG): kind = .regularFile
            case (true, S_IFDIR): kind = .directory
            default: kind = .other
            }
            let modified = Date(
                timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1_000_000_000
            ).timeIntervalSince1970
            entries.append(Entry(name: name, kind: kind, isSymbolicLink: isLink, size: Int64(info.st_size), modified: modified))
        }
        self.entries = entries
    }

    /// Whether `name` in the directory `descriptor` is a symbolic link.
    private static func lstatIsLink(_ descriptor: Int32, _ name: [UInt8]) -> Bool {
        var info = stat()
        let result = (name + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { fstatat(descriptor, $0.baseAddress!, &info, AT_SYMLINK_NOFOLLOW) }
        }
        return result == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// `bytes` as text: valid UTF-8 as is, every other byte as `\xHH`.
    package static func escaped(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var result = ""
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
            if length > 0, index + length <= bytes.count, let scalar = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
                result += scalar
                index += length
            } else {
                result += String(format: "\\x%02X", lead)
                index += 1
            }
        }
        return result
    }
}
