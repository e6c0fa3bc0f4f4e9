import Cipherdex

/// `cipherdex backup STORE DEST [KEY]`.
struct BackupCommand: Command {
    static let name = "backup"
    static let summary = "copy the store, consistent and encrypted, to DEST (incremental into an earlier backup)"
    static let help = """
        USAGE: cipherdex backup STORE DEST [KEY]

        Writes a consistent copy of STORE to DEST (a store open in another process is refused with
        storeLocked: an application backs up its open store with `store.backup(to:)`, while it
        keeps writing): the database as of one commit,
        every attachment it references and the keyslots, so DEST opens with the same keys (it is
        a store: `cipherdex info DEST KEY`). DEST must not exist, be an empty directory or hold an
        earlier backup of STORE; then only the attachments it lacks (or holds damaged) are copied.
        An earlier backup is told by STORE's id and key, so any copy of STORE (made with cp -a,
        or restored elsewhere) counts as one and is replaced without asking: never point a backup
        at a copy you write to. DEST may not be a mount point (give a folder in it). The copy is
        checked before it replaces DEST's content in one atomic step: a failure or a kill leaves
        DEST as it was. The backup of an encrypted store holds no plaintext. Progress is shown on
        a terminal.

        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let destination: String

    init(parsing arguments: inout Arguments) throws {
        target = try StoreArguments(parsing: &arguments)
        destination = try arguments.path("DEST")
    }

    func run() throws {
        let store = try target.open()
        defer { store.close() }
        let line = BackupProgressLine()
        defer { line.finish() }
        let summary = try store.backup(to: destination, progress: line.update)
        line.finish()
        Output.committed("the backup of \(target.path) in \(destination) is written")
        try Output.print(
            "backed up \(SearchCLI.singleLine(target.path)) to \(SearchCLI.singleLine(destination)): \(summary.line)")
    }
}
