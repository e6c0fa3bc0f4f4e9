import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The JSON text `doc put` stores: a regular file (a FIFO, device or directory is refused at once)
/// or standard input, at most `limit` bytes either way, so input without end (`/dev/zero`, a
/// pipe that never closes with data) is refused once past the limit instead of filling memory.
enum DocumentInput {
    /// The most bytes a document's JSON text may hold.
    static let limit = 256 << 20

    /// The text of `file`, or of standard input when `file` is nil or `-`.
    static func read(_ file: String?) throws -> Data {
        guard let file, file != "-" else { return try readStandardInput() }
        do {
            let (descriptor, size) = try FileDescriptor.openRegularFile(path: file, limit: limit)
            var data = Data(count: size)  // read in place: no second copy of up to 256 MiB
            try data.withUnsafeMutableBytes { try descriptor.readExactly(into: $0) }
            return data
        } catch let error as RegularFileError {
            if case .tooLarge = error { throw tooLarge(file) }
            throw CLIError.failed(code: "io", message: "cannot read \(file): \(error.reason)")
        } catch let error as SystemError {
            throw InputFileCheck.openFailure(file, errno: error.errno)
        }
    }

    /// Standard input to its end, refused once it holds more than `limit` bytes.
    private static func readStandardInput() throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress!, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError.failed(
                    code: "io", message: "cannot read standard input: \(String(cString: strerror(errno)))")
            }
            guard data.count + count <= limit else { throw tooLarge("standard input") }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    private static func tooLarge(_ source: String) -> CLIError {
        .failed(
            code: "documentTooLarge",
            message: "\(source) holds more than \(limit) bytes; a document's JSON text is at most 256 MiB")
    }
}
