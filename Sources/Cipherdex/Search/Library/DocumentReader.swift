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

    /// The bytes of the regular file at `path`, in one buffer of the file's size.
    static func read(path: String, limit: Int) throws -> [UInt8] {
        let file: FileDescriptor
        let size: Int64
        do {
            // O_NONBLOCK: opening a FIFO named like a document must not wait for a writer.
            file = try FileDescriptor(path: path, flags: O_RDONLY | O_NONBLOCK)
            let status = try file.status()
            guard status.isRegularFile else { throw Refusal(reason: "cannot read \(path): not a regular file") }
            size = status.size
        } catch let error as SystemError {
            throw Refusal(reason: "cannot read \(path): \(String(cString: strerror(error.errno)))")
        }
        guard size <= Int64(limit) else { throw Refusal(reason: tooLargeReason(size: size, limit: limit)) }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var filled = 0
        do {
            while filled < bytes.count {
                let count = try bytes.withUnsafeMutableBytes { buffer in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<min(buffer.count, filled + (8 << 20))]))
                }
                if count == 0 { break }
                filled += count
            }
            if filled < bytes.count {
                bytes.removeLast(bytes.count - filled)
            } else {
                // The file grew since fstat: take the rest, still under the limit.
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let count = try chunk.withUnsafeMutableBytes { try file.read(into: $0) }
                    if count == 0 { break }
                    guard bytes.count + count <= limit else {
                        throw Refusal(reason: tooLargeReason(size: Int64(bytes.count + count), limit: limit))
                    }
                    bytes.append(contentsOf: chunk[0..<count])
                }
            }
        } catch let error as SystemError {
            throw Refusal(reason: "cannot read \(path): \(String(cString: strerror(error.errno)))")
        }
        return bytes
    }
}
