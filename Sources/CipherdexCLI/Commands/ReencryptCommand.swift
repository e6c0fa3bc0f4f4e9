import Cipherdex

/// `cipherdex reencrypt STORE KEY [NEWKEY]`.
struct ReencryptCommand: Command {
    static let name = "reencrypt"
    static let summary = "re-encrypt everything under a new data key (crash-safe)"
    static let help = """
        USAGE: cipherdex reencrypt STORE KEY [NEWKEY]

        Writes a new copy of the database and of every attachment under a new random data key,
        beside the current files, switches to it in one atomic step and removes the old files:
        whoever kept an old key and an old metadata.json learns nothing from the new files. The
        store then opens with NEWKEY (or KEY again when no NEWKEY is given) and with no other key:
        every other keyslot, recovery keys included, is removed — add them again with `key add`.
        Needs free space for a copy of the store plus 10% and 4 MiB (checked first). A kill at any instant leaves the
        old or the new store, complete. Progress is shown on a terminal. A file in attachments/
        that no attachment records is sealed again when it decrypts as one of the store's;
        any other refuses the command (unrecordedAttachmentFile, nothing written).

        KEY (one of):
        \(KeyOptions.help())
        NEWKEY (one of; default: KEY):
        \(KeyOptions.help(prefix: "new-"))
        """

    let target: StoreArguments
    let newKey: KeyOptions

    init(parsing arguments: inout Arguments) throws {
        newKey = try KeyOptions(parsing: &arguments, prefix: "new-")
        target = try StoreArguments(parsing: &arguments)
        guard target.key.source != nil else { throw CLIError.usage("missing KEY") }
    }

    func run() throws {
        try StoreOwner.refuseRootOnAnotherUsersStore(target.path)
        let newProvider = try newKey.provider(confirm: true)
        guard Store.exists(at: target.path) else {
            throw StoreError.notAStore(path: target.path, reason: "no store here")
        }
        let configuration = StoreConfiguration(
            path: target.path, keyProvider: try target.key.provider(), createIfMissing: false)
        let line = ConversionProgressLine()
        defer { line.finish() }
        let removed = try Store.reencrypt(configuration, newKey: newProvider, progress: line.update)
        line.finish()
        Output.committed(
            "\(target.path) is re-encrypted under a new data key"
                + (removed.isEmpty
                    ? ""
                    : " (keyslot\(removed.count == 1 ? "" : "s") \(removed.map { "\($0.id)" }.joined(separator: ", ")) removed)")
        )
        try Output.print("re-encrypted \(SearchCLI.singleLine(target.path)) under a new data key")
        if !removed.isEmpty {
            let names = removed.map { "\($0.id)" + ($0.label.map { " (\($0))" } ?? "") }.joined(separator: ", ")
            try Output.print("removed keyslot(s) \(names): add those keys again with `cipherdex key add`")
        }
    }
}
