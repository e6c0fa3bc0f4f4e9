import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file about to be added as an attachment, opened and checked before anything is stored:
/// a missing file is `AttachmentError.sourceNotFound`, one this process may not read
/// `AttachmentError.sourceUnreadable`; only a regular file (a link to one is followed) is
/// accepted, so a FIFO, directory, device or
/// socket is refused at once (`AttachmentError.sourceNotRegularFile`) instead of blocking forever
/// or being read without end (`/dev/zero`); and a file the store's disk has no room for is
/// `StoreError.diskFull` before a byte is written.
///
/// The size comes from `fstat` of the opened descriptor, and no more than that many bytes are
/// read. A file written to while it is read (grown, shrunk or overwritten in place: its size,
/// modification or change time differs once read) is refused with `AttachmentError.sourceChanged`
/// and nothing is stored: what was read could mix its old and new content, a file it never held.
/// A file that reports 0 bytes but has content (a /proc or sysfs file) is refused
/// (`AttachmentError.sourceSizeUnknown`) rather than stored empty.
struct AttachmentSourceFile {
    /// The opened file.
    let file: FileDescriptor
    /// Its size when it was opened.
    let size: UInt64
    /// Its size, modification and change times when it was opened (after `size` was taken).
    private let opened: FileChangeStamp

    /// Opens the source at `path` for a store laid out as `layout`.
    init(path: String, layout: StoreLayout) throws {
        do {
            let (file, size) = try FileDescriptor.openRegularFile(path: path, limit: Int.max)
            self.file = file
            self.size = UInt64(size)
            self.opened = try FileChangeStamp(of: file)
        } catch let error as RegularFileError {
            switch error {
            case .notRegularFile(_, let kind): throw AttachmentError.sourceNotRegularFile(path: path, kind: kind)
            case .sizeUnknown: throw AttachmentError.sourceSizeUnknown(path: path)
            default: throw error
            }
        } catch let error as SystemError where error.errno == ELOOP {
            throw AttachmentError.sourceNotRegularFile(path: path, kind: FileKind.of(path).description)
        } catch let error as SystemError where error.errno == ENOENT || error.errno == ENOTDIR {
            throw AttachmentError.sourceNotFound(path: path)
        } catch let error as SystemError where error.errno == EACCES || error.errno == EPERM {
            throw AttachmentError.sourceUnreadable(
                path: path, reason: "permission denied: its mode, or a folder above it that may not be searched")
        } catch let error as SystemError {
            throw StoreError.classifying(error)
        }
        try Self.checkSpace(for: size, in: layout)
    }

    /// Throws `StoreError.diskFull` when the disk holding the store has less free space than the
    /// encrypted file of `size` bytes needs (content plus a 16-byte tag per 64 KiB chunk).
    static func checkSpace(for size: UInt64, in layout: StoreLayout) throws {
        guard let available = try? FileSystem.availableBytes(at: layout.directory) else { return }
        let chunks = size / UInt64(AttachmentCipherFormat.defaultChunkSize) + 1
        let needed = size.addingReportingOverflow(chunks * 16 + 4096)
        if needed.overflow || needed.partialValue > available {
            throw StoreError.diskFull(path: layout.staging)
        }
    }

    /// Hands the file's bytes to `sink` in pieces of up to 1 MiB, stopping at `size` bytes. A file
    /// that ends before (it shrank while it was read), or that was written to meanwhile (see the
    /// type's comment), is `AttachmentError.sourceChanged`: the caller stores nothing, rather
    /// than bytes that are neither the file as opened nor as it is now. The buffer is wiped
    /// afterwards.
    func stream(into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        defer { buffer.withUnsafeMutableBytes { Sodium.memzero($0) } }
        var remaining = size
        while remaining > 0 {
            let want = Int(min(UInt64(buffer.count), remaining))
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { raw in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<want]))
                }
            } catch let error as SystemError {
                // The source's own disk failing (`EIO`) is typed, naming the source.
                throw StoreError.classifying(error)
            }
            if count == 0 {
                throw AttachmentError.sourceChanged(path: file.path, expectedBytes: size, readBytes: size - remaining)
            }
            try buffer.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            remaining -= UInt64(count)
        }
        let now: FileChangeStamp
        do {
            now = try FileChangeStamp(of: file)
        } catch let error as SystemError {
            throw StoreError.classifying(error)
        }
        guard now == opened, opened.size == Int(size) else {
            throw AttachmentError.sourceChanged(path: file.path, expectedBytes: size, readBytes: size)
        }
    }
}
