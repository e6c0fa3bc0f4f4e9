import Cipherdex

/// `cipherdex key remove STORE KEY --slot N`.
struct KeyRemoveCommand {
    let target: StoreArguments
    let slot: Int

    init(parsing arguments: inout Arguments) throws {
        guard let text = try arguments.option("--slot") else { throw CLIError.usage("missing --slot N") }
        guard let value = Int(text), value >= 0 else { throw CLIError.usage("--slot must be a slot number") }
        slot = value
        target = try StoreArguments(parsing: &arguments)
        guard target.key.source != nil else { throw CLIError.usage("missing KEY") }
    }

    func run() throws {
        let store = try target.open()
        defer { store.close() }
        try store.removeKey(slot: slot)
        Output.committed("keyslot \(slot) is removed from \(target.path)")
        try Output.print("keyslot \(slot) removed from \(SearchCLI.singleLine(target.path))")
    }
}
