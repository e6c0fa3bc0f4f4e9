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
        if outputPath?.isEmpty == true { throw CLIError.usage("--out is an empty path") }
    }

    func run() throws {
        let key = EncryptionKey.generateRaw()
        try key.withHexLine { line in
            guard let outputPath else {
                try Output.write(line)
                return
            }
            try Self.writeNewFile(outputPath, line)
        }
    }

    /// Creates `path` (mode 0600; an existing file is refused) holding `bytes`, synced. A write
    /// that fails (a full disk: `diskFull`, exit 18; past `ulimit -f`: `fileTooLarge`) removes
    /// the file it created: no empty or partial key file is left to be taken for a key.
    static func writeNewFile(_ path: String, _ bytes: UnsafeRawBufferPointer) throws {
        let file: FileDescriptor
        do {
            file = try FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        } catch let error as SystemError where error.errno == ENOENT || error.errno == ENOTDIR {
            throw CLIError.failed(
                code: "parentFolderMissing",
                message:
                    "cannot create \(path): the folder \((path as NSString).deletingLastPathComponent) does not exist (create it first)"
            )
        } catch let error as SystemError where error.errno == EEXIST {
            throw CLIError.failed(
                code: "fileExists", message: "cannot create \(path): it exists (a key is never overwritten)")
        } catch let error as SystemError {
            throw StoreError.classifying(error)
        }
        do {
            // Exactly 0600 whatever the umask (one of 0777 would leave 0000).
            try file.setMode(0o600)
            try file.writeAll(bytes)
            try file.sync()
        } catch let error as SystemError {
            unlink(path)
            throw StoreError.classifying(error)
        }
    }
}
