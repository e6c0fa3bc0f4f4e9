import Cipherdex

/// `cipherdex create STORE [--plaintext] KEY`.
struct CreateCommand: Command {
    static let name = "create"
    static let summary = "create a new store (encrypted unless --plaintext)"
    static let help = """
        USAGE: cipherdex create STORE (KEY [--kdf-seconds S] | --plaintext)

        Creates a store in the directory STORE (which must not exist or be empty).

        OPTIONS:
          --plaintext                 create an unencrypted store (no KEY)
          --kdf-seconds S             Argon2id for a passphrase KEY calibrated to about S seconds on
                                      this machine (64 MiB, halved down to 1 MiB while one pass
                                      takes longer than S: a small S makes a weak slot; measured
                                      once, then cached); default 3 passes over 128 MiB
        KEY (one of):
        \(KeyOptions.help())
        """

    let path: String
    let key: KeyOptions
    let plaintext: Bool
    let kdfSeconds: Double?

    init(parsing arguments: inout Arguments) throws {
        plaintext = arguments.flag("--plaintext")
        kdfSeconds = try KeyAddCommand.kdfSeconds(parsing: &arguments)
        key = try KeyOptions(parsing: &arguments)
        path = try arguments.path("STORE")
        if plaintext && key.source != nil { throw CLIError.usage("--plaintext takes no KEY") }
        if !plaintext && key.source == nil {
            throw CLIError.usage("give a KEY option, or --plaintext for an unencrypted store")
        }
        if kdfSeconds != nil && !key.isPassphrase {
            throw CLIError.usage("--kdf-seconds is for a passphrase KEY (a raw or recovery key needs no derivation)")
        }
    }

    func run() throws {
        try StoreOwner.refuseRootOnAnotherUsersStore(path)
        guard !Store.exists(at: path) else {
            throw CLIError.failed(code: "storeExists", message: "a store already exists at \(path)")
        }
        let cost = try kdfSeconds.map { try CalibrationCache.cost(targetSeconds: $0) } ?? .default
        var configuration = StoreConfiguration(
            path: path, keyProvider: try key.provider(confirm: true), passphraseCost: cost)
        // Another process may create a store here meanwhile: never report that one as created.
        configuration.requiresNewStore = true
        let store = try Store.open(configuration)
        let encrypted = store.isEncrypted
        store.close()
        Output.committed("the store at \(path) is created")
        try Output.print("created \(encrypted ? "encrypted" : "unencrypted") store at \(SearchCLI.singleLine(path))")
    }
}
