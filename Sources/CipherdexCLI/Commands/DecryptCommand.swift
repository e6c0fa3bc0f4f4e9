import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `cipherdex decrypt STORE KEY --yes`.
struct DecryptCommand: Command {
    static let name = "decrypt"
    static let summary = "decrypt a store in place (asks first; crash-safe)"
    static let help = """
        USAGE: cipherdex decrypt STORE KEY [--yes]

        Writes every document, attachment and index entry unencrypted beside the encrypted files,
        switches to them in one atomic step and removes the encrypted files and every keyslot.
        Anyone who can read the folder can then read the data. Needs free space for a copy of the
        store plus 10% and 4 MiB (checked first). A file in attachments/ that no attachment
        records is written plain when it decrypts as one of the store's; any other refuses the
        command (unrecordedAttachmentFile, nothing written). Asks for confirmation (any answer but
        y or yes: exit 1, notConfirmed) on a terminal unless --yes is given; without a terminal,
        --yes is required.

        OPTIONS:
          --yes    do not ask
        KEY (one of):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let confirmed: Bool

    init(parsing arguments: inout Arguments) throws {
        confirmed = arguments.flag("--yes")
        target = try StoreArguments(parsing: &arguments)
        guard target.key.source != nil else { throw CLIError.usage("missing KEY") }
        if !confirmed && isatty(STDIN_FILENO) != 1 {
            throw CLIError.usage("refusing to decrypt without --yes when not on a terminal")
        }
    }

    func run() throws {
        try StoreOwner.refuseRootOnAnotherUsersStore(target.path)
        if target.path.isEmpty { throw StoreError.invalidPath(path: target.path, reason: "the path is empty") }
        guard Store.exists(at: target.path) else {
            throw StoreError.notAStore(path: target.path, reason: "no store here")
        }
        let configuration = StoreConfiguration(
            path: target.path, keyProvider: try target.key.provider(), createIfMissing: false)
        if !confirmed {
            try Confirmation.ask(
                "Store every byte of \(target.path) unencrypted, readable without a key?", declined: "not decrypted")
        }
        let line = ConversionProgressLine()
        defer { line.finish() }
        try Store.decrypt(configuration, progress: line.update)
        line.finish()
        Output.committed("\(target.path) is decrypted")
        try Output.print("decrypted \(SearchCLI.singleLine(target.path)): it is no longer encrypted")
    }
}
