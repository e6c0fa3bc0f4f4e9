#if canImport(Glibc)
    import Glibc
#endif

/// Whole-stream reads and writes on raw descriptors, retrying on EINTR.
enum StandardStreams {
    /// Everything readable from `fd` until end of file (or a read error).
    static func readAll(from fd: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                result.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return result
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
