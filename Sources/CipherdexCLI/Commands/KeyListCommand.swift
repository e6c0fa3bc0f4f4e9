import Cipherdex
import Foundation

/// `cipherdex key list STORE KEY [--json]`.
struct KeyListCommand {
    let target: StoreArguments
    let json: Bool

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag("--json")
        target = try StoreArguments(parsing: &arguments)
        guard target.key.source != nil else { throw CLIError.usage("missing KEY") }
    }

    func run() throws {
        let store = try target.open()
        defer { store.close() }
        let slots = try store.keyslots()
        if json {
            try Output.print(try Output.json(slots))
            return
        }
        let opened = store.openedKeyslot
        let dates = ISO8601DateFormatter()
        for slot in slots {
            var line = "\(slot.id)\t\(slot.kind)"
            if let ops = slot.opsLimit, let mem = slot.memLimit {
                line += "\targon2id ops \(ops), " + (mem >= 1 << 20 ? "\(mem >> 20) MiB" : "\(mem >> 10) KiB")
            } else {
                line += "\t-"
            }
            line += "\t" + (slot.createdAt.map { dates.string(from: $0) } ?? "-")
            // As ids are shown: a label's line separators and bidirectional overrides (U+2028,
            // U+202E…) would reorder or break the terminal's line (`--json` keeps it exact).
            line += "\t" + (slot.label.map(SearchCLI.singleLine) ?? "-")
            if slot.id == opened { line += "\t(this key)" }
            try Output.print(line)
        }
    }
}
