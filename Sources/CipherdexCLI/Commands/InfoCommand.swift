import Cipherdex

/// `cipherdex info STORE KEY [--json]`.
struct InfoCommand: Command {
    static let name = "info"
    static let summary = "describe a store: encryption, scheme, keyslots, sizes"
    static let help = """
        USAGE: cipherdex info STORE [KEY] [--json]

        OPTIONS:
          --json                      print the description as JSON
        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let json: Bool

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag("--json")
        target = try StoreArguments(parsing: &arguments)
    }

    func run() throws {
        let store = try target.open()
        defer { store.close() }
        let info = try store.info()
        if json {
            try Output.print(try Output.json(info))
            return
        }
        try Output.print("store:        \(SearchCLI.singleLine(info.path))")
        try Output.print("encrypted:    \(info.encrypted ? "yes" : "no")")
        try Output.print("format:       \(info.formatVersion) (schema \(info.schemaVersion))")
        if let cipher = info.cipher {
            try Output.print(
                "cipher:       SQLCipher \(cipher.cipher), \(cipher.pageSize)-byte pages, \(cipher.hmacAlgorithm)")
        }
        for slot in info.keyslots {
            var line = "keyslot \(slot.id):    \(slot.kind)"
            if let ops = slot.opsLimit, let mem = slot.memLimit { line += " (argon2id, ops \(ops), \(mem >> 20) MiB)" }
            if let label = slot.label { line += " \"\(label)\"" }
            try Output.print(line)
        }
        try Output.print("database:     \(info.databaseBytes) bytes (+ \(info.walBytes) WAL)")
        try Output.print("attachments:  \(info.attachmentCount) files, \(info.attachmentBytes) bytes")
    }
}
