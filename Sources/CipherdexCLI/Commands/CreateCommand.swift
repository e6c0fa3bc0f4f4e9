import Cipherdex

/// `cipherdex create STORE [--plaintext] KEY`.
struct CreateCommand: Command {
    static let name = "create"
    static let summary = "create a new store (encrypted unless --plaintext)"
    static let help = """
        USAGE: cipherdex create STORE (KEY | --plaintext)

        Creates a store in the directory STORE (which must not exist or be empty).

        OPTIONS:
          --plaintext                 create an unencrypted store (no KEY)
        KEY (one of):
        \(KeyOptions.help())
        """

    let path: String
    let key: KeyOptions
    let plaintext: Bool

    init(parsing arguments: inout Arguments) throws {
        plaintext = arguments.flag("--plaintext")
        key = try KeyOptions(parsing: &arguments)
        path = try arguments.positional("STORE")
        if plaintext && key.source != nil { throw CLIError.usage("--plaintext takes no KEY") }
        if !plaintext && key.source == nil {
            throw CLIError.usage("give a KEY option, or --plaintext for an unencrypted store")
        }
    }

    func run() throws {
        guard !Store.exists(at: path) else {
            throw CLIError.failed(code: "storeExists", message: "a store already exists at \(path)")
        }
        let store = try Store.open(StoreConfiguration(path: path, keyProvider: try key.provider(confirm: true)))
        let encrypted = store.isEncrypted
        store.close()
        Output.print("created \(encrypted ? "encrypted" : "unencrypted") store at \(path)")
    }
}
