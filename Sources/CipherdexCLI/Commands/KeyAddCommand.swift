import Cipherdex
import Foundation

/// `cipherdex key add STORE KEY (NEWKEY | --recovery) [--label L] [--kdf-seconds S]`.
struct KeyAddCommand {
    let target: StoreArguments
    let newKey: KeyOptions
    let recovery: Bool
    let label: String?
    let kdfSeconds: Double?

    init(parsing arguments: inout Arguments) throws {
        recovery = arguments.flag("--recovery")
        label = try arguments.option("--label")
        kdfSeconds = try Self.kdfSeconds(parsing: &arguments)
        newKey = try KeyOptions(parsing: &arguments, prefix: "new-")
        target = try StoreArguments(parsing: &arguments)
        guard target.key.source != nil else { throw CLIError.usage("missing KEY") }
        if recovery {
            guard newKey.source == nil else { throw CLIError.usage("give either NEWKEY or --recovery, not both") }
            guard kdfSeconds == nil else { throw CLIError.usage("--kdf-seconds is for a passphrase NEWKEY") }
        } else {
            guard newKey.source != nil else {
                throw CLIError.usage("missing NEWKEY (--new-key-file, ...) or --recovery")
            }
            if kdfSeconds != nil && !newKey.isPassphrase {
                throw CLIError.usage(
                    "--kdf-seconds is for a passphrase NEWKEY (a raw or recovery key needs no derivation)")
            }
        }
        if let label {
            guard !label.isEmpty, label.utf8.count <= 64 else {
                throw CLIError.usage("--label must be 1 to 64 bytes")
            }
        }
    }

    /// `--kdf-seconds S`: a number of seconds above 0 and at most 60, or nil when absent.
    static func kdfSeconds(parsing arguments: inout Arguments) throws -> Double? {
        try arguments.option("--kdf-seconds").map { text in
            // Decimal digits only: `Double` would also read `0x10` (16), `inf` or `1e1`.
            let decimal = !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard decimal, let value = Double(text), value.isFinite, value > 0, value <= 60 else {
                throw CLIError.usage("--kdf-seconds must be a number of seconds above 0 and at most 60")
            }
            return value
        }
    }

    func run() throws {
        let cost = try kdfSeconds.map { try CalibrationCache.cost(targetSeconds: $0) } ?? .default
        let store = try target.open(passphraseCost: cost)
        defer { store.close() }
        if recovery {
            let (slot, key) = try store.addRecoveryKey(label: label ?? "recovery")
            // A closed pipe must be an error here, not SIGPIPE ending the process before the slot
            // nobody saw is taken back.
            let previous = signal(SIGPIPE, SIG_IGN)
            defer { signal(SIGPIPE, previous) }
            do {
                try Output.print(key.formatted)
            } catch {
                // Nobody saw the key: a slot no one can open is taken back, and the error stands
                // (README: exit status 21's row says the slot is removed). When the removal fails
                // too (the same full disk), the error says so: a retry would add another slot.
                do {
                    try store.removeKey(slot: slot)
                } catch let removal {
                    let reason = (error as? LocalizedError)?.errorDescription ?? "\(error)"
                    let removalReason = (removal as? LocalizedError)?.errorDescription ?? "\(removal)"
                    throw CLIError.failed(
                        code: "unseenRecoveryKey",
                        message: "the recovery key in slot \(slot) could not be shown (\(reason)), and its slot "
                            + "could not be removed (\(removalReason)): nobody has seen that key; remove slot "
                            + "\(slot) with `cipherdex key remove` once there is room")
                }
                // One error line, saying both (a note line came before the error's).
                let reason = (error as? LocalizedError)?.errorDescription ?? "\(error)"
                throw CLIError.reworded(
                    error,
                    message: "\(reason); the recovery key could not be shown, so its slot \(slot) was removed "
                        + "again: the store's keys are as they were")
            }
            Output.printError(
                "cipherdex: recovery key added in slot \(slot). It is shown once: print it or write it down, "
                    + "keep it offline, and open the store with --ask-recovery-key or --recovery-key-file.")
            return
        }
        guard let provider = try newKey.provider(confirm: true) else { throw CLIError.usage("missing NEWKEY") }
        let slot = try store.addKey(provider, label: label)
        Output.committed("the key is added in slot \(slot) of \(target.path)")
        try Output.print("key added in slot \(slot) of \(SearchCLI.singleLine(target.path))")
    }
}
