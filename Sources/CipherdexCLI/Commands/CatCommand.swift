import Cipherdex
import Foundation

/// `cipherdex cat STORE ATTACHMENT [--range START-END]`.
struct CatCommand: Command {
    static let name = "cat"
    static let summary = "write an attachment's bytes to stdout"
    static let help = """
        USAGE: cipherdex cat STORE ATTACHMENT [--range START-END] [KEY]

        Decrypts and authenticates the attachment and writes it to stdout. Nothing is written
        for a chunk that fails authentication; the command then exits 1 naming the problem.

        OPTIONS:
          --range START-END   only bytes START through END (digits only), inclusive and
                              counted from 0 (as in HTTP); START- means to the end, an END
                              past the end (however many digits) the last byte; a START at
                              or past the end is rangeOutOfBounds (exit 1), but START 0 of
                              an empty attachment (0-, 0-5) writes nothing
        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let id: String
    let range: (start: UInt64, end: UInt64?)?

    init(parsing arguments: inout Arguments) throws {
        if let text = try arguments.option("--range") {
            let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let start = UInt64(parts[0])
            else {
                throw CLIError.usage("--range needs START-END or START- (byte offsets)")
            }
            let digits = !parts[1].isEmpty && parts[1].utf8.allSatisfy { (0x30...0x39).contains($0) }
            guard parts[1].isEmpty || digits else {
                throw CLIError.usage("--range END must be a byte offset (digits only)")
            }
            // As in HTTP, an END past the last byte means the last, however many digits it has.
            let end = parts[1].isEmpty ? nil : UInt64(parts[1]) ?? UInt64.max
            if let end, end < start { throw CLIError.usage("--range END must not be before START") }
            range = (start, end)
        } else {
            range = nil
        }
        target = try StoreArguments(parsing: &arguments)
        id = try arguments.positional("ATTACHMENT")
    }

    func run() throws {
        let store = try target.open()
        defer { store.close() }
        let reader = try store.attachment(id)
        guard let range else {
            do {
                try reader.write(toFileDescriptor: STDOUT_FILENO)
            } catch AttachmentError.io(_, let operation, let code)
                where operation == "write to output" || operation == "sync_file_range"
            {
                // Standard output's failure, typed as every command's output is (ENOSPC → 18).
                throw Output.writeFailure(errno: code)
            }
            return
        }
        // HTTP semantics, clamped without overflow: an END past the last byte means the last.
        let selected = try reader.byteRange(from: range.start, through: range.end)
        var offset = selected.lowerBound
        while offset < selected.upperBound {
            // `offset < upperBound <= length`, far below UInt64.max: the sum cannot overflow.
            let next = min(offset + (1 << 20), selected.upperBound)
            let data = try reader.read(range: offset..<next)
            try data.withUnsafeBytes { try Output.write($0) }
            offset = next
        }
    }
}
