import Cipherdex

/// `cipherdex key add|list|remove …`: the store's keyslots.
struct KeyCommand: Command {
    static let name = "key"
    static let summary = "add, list and remove a store's keys (keyslots), recovery keys"
    static let help = """
        USAGE: cipherdex key add STORE KEY NEWKEY [--label L] [--kdf-seconds S]
               cipherdex key add STORE KEY --recovery [--label L]
               cipherdex key list STORE KEY [--json]
               cipherdex key remove STORE KEY --slot N

        A store holds up to 32 keyslots; any of them opens it. Every change is one atomic
        metadata update. `rekey` replaces the slot the KEY opened. A NEWKEY that already opens a
        slot gets no second one (keyAlreadyInSlot). Adding or removing a slot leaves the data key
        as it is: a removed key with a copy of the old metadata.json still reads the store's
        files, and a backup made before keeps the slot (`reencrypt` cuts both off).

        SUBCOMMANDS:
          add       add NEWKEY in a new slot, or with --recovery a new random recovery key,
                    printed once on standard output (print it, keep it offline)
          list      id, label, kind, creation time and Argon2id cost of every slot
          remove    remove slot N (never the last one); its key stops opening the store

        OPTIONS:
          --label L         a name for the new slot (1 to 64 bytes; default none, `recovery`)
          --kdf-seconds S   Argon2id cost for a NEWKEY passphrase calibrated to S seconds on this
                            machine (64 MiB, halved down to 1 MiB while one pass takes longer
                            than S: a small S makes a weak slot); default 3 passes over 128 MiB
          --recovery        add a random recovery key instead of NEWKEY
          --slot N          the slot to remove (see `key list`)
          --json            list as JSON

        KEY (one of):
        \(KeyOptions.help())
        NEWKEY (one of):
        \(KeyOptions.help(prefix: "new-"))
        """

    private enum Action {
        case add(KeyAddCommand)
        case list(KeyListCommand)
        case remove(KeyRemoveCommand)
    }

    private let action: Action

    init(parsing arguments: inout Arguments) throws {
        let word = try arguments.positional("SUBCOMMAND (add, list or remove)")
        switch word {
        case "add": action = .add(try KeyAddCommand(parsing: &arguments))
        case "list": action = .list(try KeyListCommand(parsing: &arguments))
        case "remove": action = .remove(try KeyRemoveCommand(parsing: &arguments))
        default: throw CLIError.usage("unknown key subcommand '\(word)' (add, list or remove)")
        }
    }

    func run() throws {
        switch action {
        case .add(let command): try command.run()
        case .list(let command): try command.run()
        case .remove(let command): try command.run()
        }
    }
}
