internal import CSystemShims

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin POSIX file helpers for attachment files: positional reads and writes that retry on
/// `EINTR` and short transfers, mapping failures to `AttachmentError.io`.
enum AttachmentFileIO {
    /// Opens the regular file at `path` read-only; a missing file is `AttachmentError.notFound`,
    /// anything but a regular file (a FIFO, directory, device, socket, or a link to one) is
    /// `notRegularFile`, refused at once: the open uses `O_NONBLOCK | O_NOCTTY`, so a FIFO without
    /// a writer or a terminal neither blocks nor has side effects, and the kind is checked by
    /// `fstat` of the opened descriptor itself.
    static func openForReading(path: String, id: String) throws(AttachmentError) -> Int32 {
        while true {
            let fd = StandardDescriptors.movedAbove(open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC))
            if fd >= 0 {
                var info = stat()
                guard fstat(fd, &info) == 0 else {
                    let code = errno
                    close(fd)
                    throw .io(id: id, operation: "fstat", errno: code)
                }
                guard info.st_mode & S_IFMT == S_IFREG else {
                    close(fd)
                    throw .notRegularFile(id: id, path: path, kind: FileKind(mode: info.st_mode, size: 0).description)
                }
                return fd
            }
            let code = errno
            if code == EINTR { continue }
            if code == ENOENT { throw .notFound(id: id) }
            if code == ENXIO || code == ELOOP {
                // A socket (`open` says "no such device") or a loop of links: name what is there.
                throw .notRegularFile(id: id, path: path, kind: FileKind.of(path).description)
            }
            throw .io(id: id, operation: "open", errno: code)
        }
    }

    /// Creates or truncates `path` for writing with mode 0600.
    static func openForWriting(path: String, id: String) throws(AttachmentError) -> Int32 {
        while true {
            let fd = StandardDescriptors.movedAbove(open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600))
            if fd >= 0 { return fd }
            let code = errno
            if code == EINTR { continue }
            throw .io(id: id, operation: "open", errno: code)
        }
    }

    /// Reads up to `buffer.count` bytes at `offset`, stopping early only at end of file.
    ///
    /// Returns how many bytes were read.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64, id: String)
        throws(AttachmentError)
        -> Int
    {
        var done = 0
        while done < buffer.count {
            let result = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if result > 0 {
                done += result
            } else if result == 0 {
                break
            } else {
                let code = errno
                if code == EINTR { continue }
                throw .io(id: id, operation: "pread", errno: code)
            }
        }
        return done
    }

    /// Writes all of `buffer` at `offset`.
    static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: UInt64, id: String)
        throws(AttachmentError)
    {
        var done = 0
        while done < buffer.count {
            let result = pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if result >= 0 {
                done += result
            } else {
                let code = errno
                if code == EINTR { continue }
                throw .io(id: id, operation: "pwrite", errno: code)
            }
        }
    }

    /// Writes all of `bytes` at `offset`.
    static func write(_ fd: Int32, _ bytes: [UInt8], at offset: UInt64, id: String) throws(AttachmentError) {
        let result = bytes.withUnsafeBytes { buffer -> Result<Void, AttachmentError> in
            do throws(AttachmentError) {
                return .success(try write(fd, buffer, at: offset, id: id))
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// The size of the open file in bytes.
    static func size(_ fd: Int32, id: String) throws(AttachmentError) -> UInt64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw .io(id: id, operation: "fstat", errno: errno)
        }
        return UInt64(info.st_size)
    }

    /// Sets the file length to exactly `size` bytes.
    static func truncate(_ fd: Int32, to size: UInt64, id: String) throws(AttachmentError) {
        while ftruncate(fd, off_t(size)) != 0 {
            let code = errno
            if code == EINTR { continue }
            throw .io(id: id, operation: "ftruncate", errno: code)
        }
    }

    /// Flushes the file's data and metadata to stable storage.
    static func synchronize(_ fd: Int32, id: String) throws(AttachmentError) {
        while fsync(fd) != 0 {
            let code = errno
            if code == EINTR { continue }
            throw .io(id: id, operation: "fsync", errno: code)
        }
    }

    /// Asks the kernel to start writing `count` bytes at `offset` to storage now, without waiting
    /// (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`; nothing elsewhere), so the final `fsync`
    /// of a large file does not have to write it all at once. A hint only: failures are ignored,
    /// and durability still comes from `synchronize`.
    static func startWriteback(_ fd: Int32, offset: UInt64, count: UInt64) {
        _ = cdx_start_writeback(fd, Int64(offset), Int64(count))
    }

    /// Waits until the write-back of `count` bytes at `offset` is done, then drops those (now
    /// clean) pages from the page cache (Linux `sync_file_range` with both waits, then
    /// `posix_fadvise(POSIX_FADV_DONTNEED)`; nothing elsewhere). A long write then keeps reusing
    /// the few MiB of page cache it just freed instead of taking fresh memory for every page,
    /// which on a virtual machine can cost a host page fault per page (BENCHMARKS.md, issue 16).
    ///
    /// - Throws: `AttachmentError.io` when the wait reports a failed write-back (`EIO`, `ENOSPC`,
    ///   `EDQUOT`); any other refusal (a file system without it) is ignored, since this is an
    ///   optimisation and durability still comes from `synchronize`.
    static func finishWriteback(_ fd: Int32, offset: UInt64, count: UInt64, id: String) throws(AttachmentError) {
        while cdx_finish_writeback(fd, Int64(offset), Int64(count)) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EIO || code == ENOSPC || code == EDQUOT {
                throw .io(id: id, operation: "sync_file_range", errno: code)
            }
            return
        }
    }

    /// Asks the kernel to start reading `count` bytes at `offset` into the page cache without
    /// waiting (`posix_fadvise(POSIX_FADV_WILLNEED)` on Linux; nothing elsewhere). A hint only.
    static func prefetch(_ fd: Int32, offset: UInt64, count: UInt64) {
        #if os(Linux)
            _ = posix_fadvise(fd, off_t(offset), off_t(count), POSIX_FADV_WILLNEED)
        #endif
    }

    /// Closes `fd`; errors are ignored because nothing useful can be done about them here.
    static func close(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }
}
