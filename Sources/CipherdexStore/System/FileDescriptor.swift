import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An open file descriptor owned by one object and closed in `deinit`, with small typed wrappers
/// around the system calls Cipherdex needs (in the manner of swift-system). Every call retries on
/// `EINTR`. Immutable (the descriptor number and path), so it may be shared: what the kernel does
/// with concurrent calls on one descriptor is the callers' business, as with a raw `Int32`.
package final class FileDescriptor: Sendable {
    /// The raw descriptor.
    let rawValue: Int32
    /// The path it was opened with, for error messages.
    let path: String

    /// Opens `path` with `flags` (and `mode` when creating), never on descriptors 0–2
    /// (`StandardDescriptors.movedAbove`: a store file there would receive the process's output).
    package init(path: String, flags: Int32, mode: mode_t = 0o600) throws {
        let fd = try Self.retrying(operation: "open", path: path) {
            StandardDescriptors.movedAbove(Glibc.open(path, flags | O_CLOEXEC, mode))
        }
        self.rawValue = fd
        self.path = path
    }

    /// Takes ownership of the open descriptor `rawValue` (opened for `path`).
    package init(adopting rawValue: Int32, path: String) {
        self.rawValue = rawValue
        self.path = path
    }

    deinit {
        _ = Glibc.close(rawValue)
    }

    /// Runs `call` until it does not fail with EINTR; throws `SystemError` on any other failure.
    @discardableResult
    static func retrying<T: BinaryInteger>(operation: String, path: String, _ call: () -> T) throws -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            throw SystemError(operation: operation, path: path, errno: code)
        }
    }

    /// Sets the open file's permission bits (`fchmod`), whatever the umask made them.
    package func setMode(_ mode: mode_t) throws {
        try Self.retrying(operation: "fchmod", path: path) { fchmod(rawValue, mode) }
    }

    /// Flushes the file's data and metadata to stable storage.
    package func sync() throws {
        try Self.retrying(operation: "fsync", path: path) { fsync(rawValue) }
    }

    /// Writes every byte of `buffer`, looping over short writes.
    package func writeAll(_ buffer: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            let written = try Self.retrying(operation: "write", path: path) {
                Glibc.write(rawValue, buffer.baseAddress! + offset, buffer.count - offset)
            }
            offset += written
        }
    }

    /// Writes every byte of `bytes`.
    package func writeAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeAll($0) }
    }

    /// Reads up to `buffer.count` bytes; returns how many were read (0 at end of file).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try Self.retrying(operation: "read", path: path) { Glibc.read(rawValue, buffer.baseAddress!, buffer.count) }
    }

    /// Reads up to `buffer.count` bytes from byte `offset` (`pread`, the file position left as
    /// it is); returns how many were read (0 at or past the end of the file).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try Self.retrying(operation: "pread", path: path) {
            Glibc.pread(rawValue, buffer.baseAddress!, buffer.count, off_t(offset))
        }
    }

    /// Takes an exclusive advisory lock (`flock(LOCK_EX | LOCK_NB)`); false when another open file
    /// description holds it.
    func tryLockExclusive() throws -> Bool {
        while true {
            if flock(rawValue, LOCK_EX | LOCK_NB) == 0 { return true }
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK { return false }
            throw SystemError(operation: "flock", path: path, errno: code)
        }
    }

    /// Releases the advisory lock.
    func unlock() {
        _ = flock(rawValue, LOCK_UN)
    }
}
