import Cipherdex

/// `cipherdex encrypt STORE NEWKEY`.
struct EncryptCommand: Command {
    static let name = "encrypt"
    static let summary = "encrypt an unencrypted store in place (crash-safe)"
    static let help = """
        USAGE: cipherdex encrypt STORE NEWKEY

        Encrypts an unencrypted store in place: every document, attachment, index entry and
        setting is written encrypted under a new data key wrapped for NEWKEY, beside the plaintext
        files; one atomic step switches to it and the plaintext files are removed. Afterwards the
        store needs NEWKEY to open. Needs free space for a copy of the store plus 10% and 4 MiB
        (checked first). A kill at any instant leaves the plaintext or the encrypted store,
        complete. Progress is shown on a terminal. A file in attachments/ that no attachment
        records refuses the command (unrecordedAttachmentFile, nothing written): it would stay
        readable without the key; move it out of the store's folder first.

        NEWKEY (one of):
        \(KeyOptions.help(prefix: "new-"))
        """

    let path: String
    let newKey: KeyOptions

    init(parsing arguments: inout Arguments) throws {
        newKey = try KeyOptions(parsing: &arguments, prefix: "new-")
        path = try arguments.path("STORE")
        guard newKey.source != nil else { throw CLIError.usage("missing NEWKEY (--new-key-file, ...)") }
    }

    func run() throws {
        try StoreOwner.refuseRootOnAnotherUsersStore(path)
        if path.isEmpty { throw StoreError.invalidPath(path: path, reason: "the path is empty") }
        guard Store.exists(at: path) else { throw StoreError.notAStore(path: path, reason: "no store here") }
        guard let provider = try newKey.provider(confirm: true) else { throw CLIError.usage("missing NEWKEY") }
        let line = ConversionProgressLine()
        defer { line.finish() }
        try Store.encrypt(
            StoreConfiguration(path: path, createIfMissing: false), newKey: provider, progress: line.update)
        line.finish()
        Output.committed("\(path) is encrypted")
        try Output.print("encrypted \(SearchCLI.singleLine(path))")
    }
}
