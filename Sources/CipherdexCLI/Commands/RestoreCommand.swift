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
        destination = try arguments.path("STORE")
    }

    func run() throws {
        try StoreOwner.refuseRootOnAnotherUsersStore(destination)
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
        } catch let error as EncryptionError {
            throw Self.naming(backup.path, in: error)
        }
        line.finish()
        Output.committed("\(destination) is restored from \(backup.path)")
        try Output.print(
            "restored \(SearchCLI.singleLine(backup.path)) to \(SearchCLI.singleLine(destination)): \(summary.line)")
        if replacing && backup.key.source == nil {
            try Output.print(
                "\(destination) is now UNENCRYPTED, as the backup is: it opens without a key "
                    + "(`cipherdex encrypt` encrypts it again)")
        } else if replacing {
            // Keys removed or replaced since the backup was made open the store again.
            try Output.print(
                "\(destination) now opens with the backup's keys (a key removed or replaced since the backup "
                    + "was made opens it again): see `cipherdex key list`")
        }
    }

    /// A key error of the backup's open, naming the backup: KEY opens BACKUP, and a wrong key
    /// must not read as if the store at STORE refused it.
    static func naming(_ backup: String, in error: EncryptionError) -> Error {
        switch error {
        case .keyInvalid:
            return CLIError.reworded(
                error, message: "the key does not open the backup \(backup) (wrong key; KEY opens BACKUP)")
        case .keyRequired:
            return CLIError.reworded(
                error, message: "the backup \(backup) is encrypted and no key was supplied (KEY opens BACKUP)")
        case .keyUnexpected:
            return CLIError.reworded(
                error, message: "the backup \(backup) is not encrypted but a key was supplied (omit KEY)")
        case .unsupportedScheme, .metadataCorrupt:
            return CLIError.reworded(error, message: "the backup \(backup): \(error.errorDescription ?? error.name)")
        }
    }
}
