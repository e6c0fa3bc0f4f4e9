import Cipherdex

/// `cipherdex restore BACKUP STORE [KEY] [--yes]`.
struct RestoreCommand: Command {
    static let name = "restore"
    static let summary = "copy a backup to STORE (replacing a store there only with --yes)"
    static let help = """
        USAGE: cipherdex restore BACKUP STORE [KEY] [--yes]

        A backup is a store and opens as it is; restore copies it to STORE, checked, in one
        atomic step (a kill leaves STORE as it was or the complete restored store). A store
        already at STORE is refused unless --yes is given; with --yes it is replaced (its keys
        too: the restored store opens with the backup's keys, a key removed or replaced since
        the backup was made included, and says so). KEY opens BACKUP.

        OPTIONS:
          --yes    replace a store at STORE
        KEY (one of; omit for an unencrypted backup):
        \(KeyOptions.help())
        """

    let backup: StoreArguments
    let destination: String
    let confirmed: Bool

    init(parsing arguments: inout Arguments) throws {
        confirmed = arguments.flag("--yes")
        backup = try StoreArguments(parsing: &arguments)
        destination = try arguments.positional("STORE")
    }

    func run() throws {
        guard Store.exists(at: backup.path) else {
            throw StoreError.notAStore(path: backup.path, reason: "no backup here")
        }
        let configuration = StoreConfiguration(
            path: backup.path, keyProvider: try backup.key.provider(), createIfMissing: false)
        let replacing = Store.exists(at: destination)
        let line = BackupProgressLine()
        defer { line.finish() }
        let summary: BackupSummary
        do {
            summary = try Store.restore(
                configuration, to: destination, replacingExistingStore: confirmed, progress: line.update)
        } catch BackupError.destinationNotAStore(let path, let reason) {
            // The library words it for either; say it as a restore.
            throw CLIError.failed(
                code: BackupError.destinationNotAStore(path: path, reason: reason).name,
                message: "cannot restore to \(path): \(reason) (give a new path, an empty directory, "
                    + "or a store to replace with --yes)")
        }
        line.finish()
        Output.committed("\(destination) is restored from \(backup.path)")
        try Output.print("restored \(backup.path) to \(destination): \(summary.line)")
        if replacing {
            // Keys removed or replaced since the backup was made open the store again.
            try Output.print(
                "\(destination) now opens with the backup's keys, not the ones it had: see `cipherdex key list`")
        }
    }
}
