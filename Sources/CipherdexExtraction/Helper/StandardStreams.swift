#if canImport(Glibc)
    import Glibc
#endif

/// Whole-stream reads and writes on raw descriptors, retrying on EINTR.
enum StandardStreams {
    /// Exactly `count` bytes from `fd`, or fewer at end of file (or a read error). Reads straight
    /// into the result, so a document is held once.
    static func read(_ count: Int, from fd: Int32) -> [UInt8] {
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            while initialized < count {
                let got = Glibc.read(fd, buffer.baseAddress! + initialized, count - initialized)
                if got > 0 {
                    initialized += got
                } else if got < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// Writes all of `bytes` to `fd`; gives up silently when the reader has gone.
    static func writeAll(_ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count > 0 {
                offset += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
