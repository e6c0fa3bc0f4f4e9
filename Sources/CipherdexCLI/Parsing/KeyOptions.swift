import Cipherdex
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The shared KEY option group: where the key comes from. Key material is never taken as a bare
/// argument (it would show in `ps`). `prefix` is "" for KEY and "new-" for NEWKEY.
struct KeyOptions {
    enum Source {
        case keyFile(String)
        case keyEnvironment(String)
        case passphraseFile(String)
        case passphraseEnvironment(String)
        case askPassphrase
        case recoveryKeyFile(String)
        case askRecoveryKey
    }

    /// Whether the key comes as a passphrase (the only kind `--kdf-seconds` applies to).
    var isPassphrase: Bool {
        switch source {
        case .passphraseFile, .passphraseEnvironment, .askPassphrase: return true
        default: return false
        }
    }

    /// Where the key comes from; nil when none was given.
    let source: Source?
    private let prefix: String

    /// Help text for the group.
    static func help(prefix: String = "") -> String {
        """
          --\(prefix)key-file PATH         32 raw bytes, or 64 hex digits (white space around them ignored)
          --\(prefix)key-env NAME          environment variable holding 64 hex digits
          --\(prefix)passphrase-file PATH  a passphrase, its bytes as they are but a final \\n, \\r\\n or \\r
          --\(prefix)passphrase-env NAME   environment variable holding a passphrase
          --\(prefix)ask-passphrase        read a passphrase from the terminal without echo
          --\(prefix)recovery-key-file PATH  a recovery key as printed by `key add --recovery`
          --\(prefix)ask-recovery-key      type a recovery key at the terminal (without echo)
        """
    }

    /// Pulls the group's options out of `arguments`; more than one source is a usage error.
    init(parsing arguments: inout Arguments, prefix: String = "") throws {
        self.prefix = prefix
        var sources: [Source] = []
        if let path = try arguments.option("--\(prefix)key-file") { sources.append(.keyFile(path)) }
        if let name = try arguments.option("--\(prefix)key-env") { sources.append(.keyEnvironment(name)) }
        if let path = try arguments.option("--\(prefix)passphrase-file") { sources.append(.passphraseFile(path)) }
        if let name = try arguments.option("--\(prefix)passphrase-env") { sources.append(.passphraseEnvironment(name)) }
        if arguments.flag("--\(prefix)ask-passphrase") { sources.append(.askPassphrase) }
        if let path = try arguments.option("--\(prefix)recovery-key-file") { sources.append(.recoveryKeyFile(path)) }
        if arguments.flag("--\(prefix)ask-recovery-key") { sources.append(.askRecoveryKey) }
        guard sources.count <= 1 else {
            throw CLIError.usage("give at most one \(prefix.isEmpty ? "KEY" : "NEWKEY") option")
        }
        self.source = sources.first
    }

    /// A provider reading the key each time the store asks; nil when no source was given.
    /// A terminal passphrase is asked once and kept only in the `EncryptionKey`.
    func provider(confirm: Bool = false) throws -> KeyProvider? {
        guard let source, let read = try reader(of: source, confirm: confirm) else { return nil }
        let group = prefix.isEmpty ? "KEY" : "NEWKEY"
        let option = describe(source)
        // A key that does not parse names the option it came from: KEY and NEWKEY, a file and a
        // variable, would otherwise read the same ("key text is not 64 hexadecimal digits").
        return {
            do {
                return try read()
            } catch let error as KeyError {
                if case .unreadable = error { throw error }
                throw CLIError.reworded(
                    error, message: "\(group) (\(option)): \(error.errorDescription ?? String(describing: error))")
            }
        }
    }

    /// The option and its argument as given (`--new-key-file PATH`).
    private func describe(_ source: Source) -> String {
        switch source {
        case .keyFile(let path): return "--\(prefix)key-file \(path)"
        case .keyEnvironment(let name): return "--\(prefix)key-env \(name)"
        case .passphraseFile(let path): return "--\(prefix)passphrase-file \(path)"
        case .passphraseEnvironment(let name): return "--\(prefix)passphrase-env \(name)"
        case .askPassphrase: return "--\(prefix)ask-passphrase"
        case .recoveryKeyFile(let path): return "--\(prefix)recovery-key-file \(path)"
        case .askRecoveryKey: return "--\(prefix)ask-recovery-key"
        }
    }

    /// What reads the key from `source` each time it is asked.
    private func reader(of source: Source, confirm: Bool) throws -> KeyProvider? {
        switch source {
        case .keyFile(let path):
            return { try EncryptionKey.raw(contentsOfFile: path) }
        case .keyEnvironment(let name):
            guard ProcessInfo.processInfo.environment[name] != nil else {
                throw CLIError.usage("environment variable \(name) is not set")
            }
            return {
                guard let value = ProcessInfo.processInfo.environment[name] else {
                    throw KeyError.unreadable(source: "$\(name)", reason: "not set")
                }
                return try EncryptionKey.raw(hex: value)
            }
        case .passphraseFile(let path):
            return { try EncryptionKey.passphrase(contentsOfFile: path) }
        case .passphraseEnvironment(let name):
            guard ProcessInfo.processInfo.environment[name] != nil else {
                throw CLIError.usage("environment variable \(name) is not set")
            }
            return {
                // The variable's bytes as they are: `ProcessInfo` would decode them into a
                // `String`, repairing bytes that are not UTF-8 (another key than a file's).
                guard let value = getenv(name) else {
                    throw KeyError.unreadable(source: "$\(name)", reason: "not set")
                }
                return try EncryptionKey.passphrase(bytes: UnsafeRawBufferPointer(start: value, count: strlen(value)))
            }
        case .askPassphrase:
            // Asked when the store first needs it, then kept only in the `EncryptionKey`: an
            // unencrypted store (keyUnexpected) or a store that is not there asks nothing.
            let label = prefix.isEmpty ? "Passphrase" : "New passphrase"
            let asked = Mutex<EncryptionKey?>(nil)
            return {
                try asked.withLock { kept in
                    if let kept { return kept }
                    let key = try TerminalPassphrase.read(prompt: "\(label): ")
                    if confirm {
                        let again = try TerminalPassphrase.read(prompt: "Repeat \(label.lowercased()): ")
                        guard key.matches(again) else {
                            throw CLIError.failed(code: "passphraseMismatch", message: "the passphrases do not match")
                        }
                    }
                    kept = key
                    return key
                }
            }
        case .recoveryKeyFile(let path):
            return { try RecoveryKey(contentsOfFile: path).key }
        case .askRecoveryKey:
            let asked = Mutex<EncryptionKey?>(nil)
            return {
                try asked.withLock { kept in
                    if let kept { return kept }
                    let key = try TerminalPassphrase.readRecoveryKey(prompt: "Recovery key: ").key
                    kept = key
                    return key
                }
            }
        }
    }
}
