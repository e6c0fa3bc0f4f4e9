import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `cipherdex keygen [--out FILE]`: 32 random bytes as 64 hex digits.
struct KeygenCommand: Command {
    static let name = "keygen"
    static let summary = "print a new random 32-byte key as 64 hex digits"
    static let help = """
        USAGE: cipherdex keygen [--out FILE]

        Prints 32 random bytes from the system's CSPRNG as 64 hexadecimal digits and a newline.

        OPTIONS:
          --out FILE   write the key to FILE (created with mode 0600; an existing file is refused)
        """

    let outputPath: String?

    init(parsing arguments: inout Arguments) throws {
        outputPath = try arguments.option("--out")
    }

    func run() throws {
        let key = EncryptionKey.generateRaw()
        try key.withHexLine { line in
            guard let outputPath else {
                try Output.write(line)
                return
            }
            let fd = open(outputPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw CLIError.failed(
                    code: "io", message: "cannot create \(outputPath): \(String(cString: strerror(errno)))")
            }
            defer { close(fd) }
            fchmod(fd, 0o600)
            var offset = 0
            while offset < line.count {
                let written = write(fd, line.baseAddress! + offset, line.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    throw CLIError.failed(code: "io", message: "cannot write \(outputPath)")
                }
                offset += written
            }
            guard fsync(fd) == 0 else { throw CLIError.failed(code: "io", message: "cannot sync \(outputPath)") }
        }
    }
}
