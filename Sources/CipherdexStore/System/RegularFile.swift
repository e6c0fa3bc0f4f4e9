import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reading files that must be regular files (key and passphrase files, the metadata file): a
/// FIFO, socket, device or directory at the path is refused at once with
/// `RegularFileError.notRegularFile` instead of blocking forever or reading without end.
///
/// The path is opened with `O_NONBLOCK | O_NOCTTY`, so opening a FIFO with no writer, or a
/// terminal, neither blocks nor has side effects; the descriptor is then checked with `fstat`,
/// and its size taken from that same `fstat`, so what is checked is exactly what is read (no
/// `stat`-then-`open` race). Symbolic links are followed: a link to a regular file is fine, and
/// the check applies to its target. `O_NONBLOCK` is left set; it does nothing for regular files.
///
/// A file whose `fstat` size is 0 is read for one byte: a /proc or sysfs file (and some FUSE
/// files) reports 0 bytes yet has content, and reading "its size" would silently give nothing.
/// Such a file is refused with `RegularFileError.sizeUnknown`; a truly empty file reads nothing.
extension FileDescriptor {
    /// Opens the existing regular file at `path` for reading and returns it with its size.
    ///
    /// - Throws: `SystemError` when `open` or `fstat` fails (`ENOENT`, `EACCES`, `ELOOP`…);
    ///   `RegularFileError.notRegularFile` for anything but a regular file (a socket, which
    ///   `open` refuses with `ENXIO`, included); `RegularFileError.tooLarge` beyond `limit` bytes;
    ///   `RegularFileError.sizeUnknown` for a file that reports 0 bytes but has content.
    package static func openRegularFile(path: String, limit: Int) throws -> (descriptor: FileDescriptor, size: Int) {
        let file: FileDescriptor
        do {
            file = try FileDescriptor(path: path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY)
        } catch let error as SystemError where error.errno == ENXIO {
            // Only for the message: `open` refuses a socket with ENXIO ("no such device").
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
                throw RegularFileError.notRegularFile(
                    path: path, kind: FileKind(mode: info.st_mode, size: 0).description)
            }
            throw error
        }
        let info = try file.status()
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw RegularFileError.notRegularFile(
                path: path, kind: FileKind(mode: info.st_mode, size: 0).description)
        }
        let size = UInt64(max(0, info.st_size))
        guard size <= UInt64(max(0, limit)) else {
            throw RegularFileError.tooLarge(path: path, size: size, limit: limit)
        }
        if size == 0 { try file.checkEmpty() }
        return (file, Int(size))
    }

    /// Throws `RegularFileError.sizeUnknown` unless a read at the start of this file (whose
    /// `fstat` size is 0) finds nothing. A read that would block (`EAGAIN`, the descriptor being
    /// non-blocking) cannot tell either, and is refused the same way.
    private func checkEmpty() throws {
        var byte: UInt8 = 0
        let count: Int
        do {
            count = try withUnsafeMutableBytes(of: &byte) { try read(into: $0) }
        } catch let error as SystemError where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
            throw RegularFileError.sizeUnknown(path: path)
        }
        guard count == 0 else { throw RegularFileError.sizeUnknown(path: path) }
    }

    /// `fstat` of the descriptor.
    func status() throws -> stat {
        var info = stat()
        try Self.retrying(operation: "fstat", path: path) { fstat(rawValue, &info) }
        return info
    }

    /// Fills `buffer` from the current offset, which must be the start of a file of exactly
    /// `buffer.count` bytes: a file that ends early or whose size changed during the read throws
    /// `RegularFileError.changedWhileReading`. Nothing is read beyond `buffer.count` bytes.
    package func readExactly(into buffer: UnsafeMutableRawBufferPointer) throws {
        var total = 0
        while total < buffer.count {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[total...]))
            if count == 0 { throw RegularFileError.changedWhileReading(path: path) }
            total += count
        }
        guard try status().st_size == buffer.count else {
            throw RegularFileError.changedWhileReading(path: path)
        }
    }
}

extension FileSystem {
    /// The whole content of the regular file at `path`, at most `limit` bytes; see
    /// `FileDescriptor.openRegularFile(path:limit:)` for what is refused and how.
    static func readRegularFile(_ path: String, limit: Int = 16 << 20) throws -> [UInt8] {
        let (file, size) = try FileDescriptor.openRegularFile(path: path, limit: limit)
        var bytes = [UInt8](repeating: 0, count: size)
        try bytes.withUnsafeMutableBytes { try file.readExactly(into: $0) }
        return bytes
    }
}
