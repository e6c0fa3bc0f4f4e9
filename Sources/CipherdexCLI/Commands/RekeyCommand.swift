import Cipherdex

/// `cipherdex rekey STORE KEY NEWKEY`.
struct RekeyCommand: Command {
    static let name = "rekey"
    static let summary = "replace the key that opens a store's slot (instant, crash-safe)"
    static let help = """
        USAGE: cipherdex rekey STORE KEY NEWKEY

        Rewraps the store's data key with NEWKEY in place of the keyslot KEY opened (a new slot
        number, the same label but `recovery`), in one atomic step; KEY stops working, the other
        keyslots (`cipherdex key list`) are kept. A NEWKEY that already opens another slot is
        refused (keyAlreadyInSlot). The data key is not changed: whoever kept KEY and a copy of
        the old metadata.json can still read the store's files; `reencrypt` cuts that off.

        KEY (one of):
        \(KeyOptions.help())
        NEWKEY (one of):
        \(KeyOptions.help(prefix: "new-"))
        """

    let target: StoreArguments
    let newKey: KeyOptions

    init(parsing arguments: inout Arguments) throws {
        newKey = try KeyOptions(parsing: &arguments, prefix: "new-")
        target = try StoreArguments(parsing: &arguments)
        guard target.key.source != nil else { throw CLIError.usage("missing KEY") }
        guard newKey.source != nil else { throw CLIError.usage("missing NEWKEY (--new-key-file, ...)") }
    }

    func run() throws {
        let store = try target.open()
        defer { store.close() }
        guard let provider = try newKey.provider(confirm: true) else { throw CLIError.usage("missing NEWKEY") }
        try store.rotateKey(to: provider)
        Output.committed("the key of \(target.path) is changed: only the new key opens it")
        try Output.print("key changed for \(SearchCLI.singleLine(target.path))")
    }
}
