import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a document to index into memory exactly once, refusing one larger than the limit
/// before reading any of it.
enum DocumentReader {
    /// Why a document was not read; `reason` is what its status says.
    struct Refusal: Error {
        /// A one-line reason.
        let reason: String
    }

    /// The reason for a document of `size` bytes over `limit`.
    static func tooLargeReason(size: Int64, limit: Int) -> String {
        "the document is \(size) bytes, larger than the limit of \(limit) bytes (Configuration.maximumDocumentSize)"
    }

    /// The bytes of the regular file at `path`, in one buffer of the file's size, read once
    /// (`FileDescriptor.openRegularFile`: a FIFO or device is refused without blocking, and an
    /// oversized file before any byte is read). A file written to while it was read
    /// (`FileChangeStamp`) is refused: what was read may mix its old and new content.
    /// `afterReading` runs between the read and the second look (a test writes there).
    static func read(path: String, limit: Int, afterReading: () -> Void = {}) throws -> [UInt8] {
        do {
            let (file, size) = try FileDescriptor.openRegularFile(path: path, limit: limit)
            let opened = try FileChangeStamp(of: file)
            var bytes = [UInt8](repeating: 0, count: size)
            try bytes.withUnsafeMutableBytes { try file.readExactly(into: $0) }
            afterReading()
            guard opened.size == size, try FileChangeStamp(of: file) == opened else {
                throw Refusal(
                    reason: "\(path) was written to while it was read (what was read may mix its old and new "
                        + "content); add or index it again once nothing writes to it")
            }
            return bytes
        } catch RegularFileError.tooLarge(_, let size, _) {
            throw Refusal(reason: tooLargeReason(size: Int64(clamping: size), limit: limit))
        } catch let error as RegularFileError {
            throw Refusal(reason: "cannot read \(path): \(error.reason)")
        } catch let error as SystemError {
            throw Refusal(reason: "cannot read \(path): \(String(cString: strerror(error.errno)))")
        }
    }
}
