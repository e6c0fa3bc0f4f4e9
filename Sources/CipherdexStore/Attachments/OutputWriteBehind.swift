#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sequential writes to a caller's file descriptor (`cipherdex cat`'s standard output) that, when
/// it is a regular file, keep its page cache small the way `AttachmentBackgroundWrites` does for
/// attachment files: every `AttachmentBackgroundWrites.writebackBytes` written, write-back of
/// them is started, and once `writebackLag` more ranges are under way the oldest is waited for
/// and dropped from the page cache. A pipe, terminal or socket gets plain writes.
///
/// It changes no byte and no durability: the caller still syncs the file if it needs it.
struct OutputWriteBehind {
    private let fd: Int32
    private let id: String
    /// Whether `fd` is a regular file (and write-back is worth asking for).
    private var isRegularFile = false
    /// Where the written range not yet handed to write-back starts (nil until the first write).
    private var rangeStart: UInt64?
    /// Ranges whose write-back was started, oldest first.
    private var inFlight: [(offset: UInt64, count: UInt64)] = []

    /// Prepares to write to `fd` at its current offset; `id` names the attachment in errors.
    init(fileDescriptor fd: Int32, id: String) {
        self.fd = fd
        self.id = id
        var info = stat()
        isRegularFile = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Writes all of `bytes` at the descriptor's offset.
    ///
    /// - Throws: `AttachmentError.io` for a failed write or a failed write-back.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws(AttachmentError) {
        var done = 0
        while done < bytes.count {
            #if canImport(Glibc)
                let result = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            #else
                let result = Darwin.write(fd, bytes.baseAddress! + done, bytes.count - done)
            #endif
            if result >= 0 {
                done += result
            } else {
                let code = errno
                if code == EINTR { continue }
                throw .io(id: id, operation: "write to output", errno: code)
            }
        }
        guard isRegularFile else { return }
        // The offset after the write, even under O_APPEND.
        let position = lseek(fd, 0, SEEK_CUR)
        guard position >= bytes.count, UInt64(position) - UInt64(bytes.count) >= rangeStart ?? 0 else {
            isRegularFile = false  // someone else moved the offset: stop hinting
            return
        }
        let end = UInt64(position)
        let start = rangeStart ?? (end - UInt64(bytes.count))
        rangeStart = start
        guard end - start >= AttachmentBackgroundWrites.writebackBytes else { return }
        AttachmentFileIO.startWriteback(fd, offset: start, count: end - start)
        inFlight.append((start, end - start))
        rangeStart = end
        if inFlight.count > AttachmentBackgroundWrites.writebackLag {
            let oldest = inFlight.removeFirst()
            try AttachmentFileIO.finishWriteback(fd, offset: oldest.offset, count: oldest.count, id: id)
        }
    }
}
