import Cipherdex
import Foundation

/// Checks a store after the child was killed: a wrong key and no key are refused with the
/// right typed error and change no byte; the right key opens it; `verify()` finds nothing;
/// no staging leftover survives the open; then the operation's own expectations
/// (`OperationChecks`). Returns the problems found, one line each.
struct TrialChecker {
    /// The operation the child was performing.
    let operation: CrashOperation
    /// The trial's folder.
    let trial: TrialLayout
    /// The shared inputs.
    let fixtures: Fixtures
    /// What the child acknowledged.
    let log: AckLog

    /// Runs every check.
    func check() -> [String] {
        var problems: [String] = []
        do {
            try checkStore(into: &problems)
        } catch {
            problems.append("unexpected error: \(Self.describe(error))")
        }
        return problems
    }

    private func checkStore(into problems: inout [String]) throws {
        let manager = FileManager.default
        let hasMetadata = manager.fileExists(atPath: trial.store + "/metadata.json")
        switch operation {
        case .create:
            if log.finished && !hasMetadata { problems.append("acknowledged create left no metadata.json") }
            guard hasMetadata else { return try checkFreshOpen(into: &problems) }
        case .delete:
            if log.finished && manager.fileExists(atPath: trial.store) {
                problems.append(
                    "acknowledged delete left the directory: \(StoreSnapshot(of: trial.store).entries.keys.sorted())")
            }
            guard hasMetadata else { return try checkFreshOpen(into: &problems) }
        default:
            guard hasMetadata else {
                problems.append("metadata.json is missing: \(StoreSnapshot(of: trial.store).entries.keys.sorted())")
                return
            }
        }
        let encrypted = operation.mayBeUnencrypted ? try Self.isEncrypted(trial.store) : true
        if log.finished && operation == .encrypt && !encrypted {
            problems.append("an acknowledged encrypt left the store unencrypted")
        }
        if log.finished && operation == .decrypt && encrypted {
            problems.append("an acknowledged decrypt left the store encrypted")
        }
        let keyFile: String?
        if encrypted {
            try refusals(into: &problems)
            guard let right = try rightKey(into: &problems) else { return }
            keyFile = right
        } else {
            try unencryptedRefusal(into: &problems)
            keyFile = nil
        }
        let store: Store
        do {
            store = try Store.open(Fixtures.configuration(trial.store, keyFile: keyFile, create: false))
        } catch {
            problems.append("the right key does not open the store: \(Self.describe(error))")
            return
        }
        defer { store.close() }
        if operation.mayBeUnencrypted {
            // The open removed the other generation: an encrypted store now holds no plaintext,
            // and no store holds the keys.
            let markers = encrypted ? try plaintextMarkers() : try keyMarkers()
            let leaks = StoreSnapshot(of: trial.store).files(containing: markers)
            if !leaks.isEmpty { problems.append("after the open, plaintext of user data or keys in \(leaks)") }
        }
        try commonChecks(store, into: &problems)
        if operation == .delete {
            try OperationChecks(operation: operation, trial: trial, fixtures: fixtures, log: log)
                .checkBaseline(store, into: &problems)
        }
        try OperationChecks(operation: operation, trial: trial, fixtures: fixtures, log: log).check(
            store, into: &problems)
    }

    /// A wrong key and no key fail with the right error and leave every byte of the store at
    /// `directory` (default: the trial's) as it was.
    func refusals(of directory: String? = nil, into problems: inout [String]) throws {
        let path = directory ?? trial.store
        let attempts: [(String, String?, EncryptionError)] = [
            ("a wrong key", fixtures.wrongKey, .keyInvalid), ("no key", nil, .keyRequired),
        ]
        // A conversion between plaintext and encrypted leaves the plaintext generation until the
        // next open removes it: for those the check runs after the open (`checkStore`).
        if !operation.mayBeUnencrypted {
            let leaks = StoreSnapshot(of: path).files(containing: try plaintextMarkers())
            if !leaks.isEmpty { problems.append("plaintext of user data or keys in \(leaks)") }
        }
        for (name, keyFile, expected) in attempts {
            let before = StoreSnapshot(of: path)
            var outcome = "it opened"
            do {
                try Store.open(Fixtures.configuration(path, keyFile: keyFile, create: false)).close()
            } catch let error as EncryptionError where error == expected {
                outcome = ""
            } catch {
                outcome = Self.describe(error)
            }
            if let change = StoreSnapshot(of: path).difference(from: before) {
                problems.append("opening with \(name) changed files: \(change)")
            }
            if !outcome.isEmpty {
                problems.append("opening with \(name) did not fail with \(expected.name): \(outcome)")
            }
        }
    }

    /// Bytes of the keys and of the documents' and library files' text that no store file may
    /// contain.
    func plaintextMarkers() throws -> [Data] {
        var markers = [Data("small document".utf8), Data(#""kind":"#.utf8), Data("zqtok".utf8)]
        markers += try keyMarkers()
        if let small = FileManager.default.contents(atPath: fixtures.small(0)) { markers.append(small.prefix(64)) }
        return markers
    }

    /// The bytes of the key files: no store file may hold them, encrypted or not.
    private func keyMarkers() throws -> [Data] {
        try [fixtures.keyA, fixtures.keyB].map { key in
            guard let bytes = FileManager.default.contents(atPath: key) else { throw HarnessError.setup("no \(key)") }
            return bytes
        }
    }

    /// The key that must open the store; for `rekey`, exactly one of A and B opens, and it
    /// must be the one the acknowledged rotations (or the one in flight) left.
    private func rightKey(into problems: inout [String]) throws -> String? {
        guard operation == .rekey || operation == .reencrypt else { return fixtures.keyA }
        let keys = [fixtures.keyA, fixtures.keyB]
        var opening: [Int] = []
        for index in keys.indices {
            let before = StoreSnapshot(of: trial.store)
            do {
                try Store.open(Fixtures.configuration(trial.store, keyFile: keys[index], create: false)).close()
                opening.append(index)
            } catch let error as EncryptionError where error == .keyInvalid {
                if let change = StoreSnapshot(of: trial.store).difference(from: before) {
                    problems.append(
                        "opening with the superseded key \(index == 0 ? "A" : "B") changed files: \(change)")
                }
            } catch {
                problems.append("key \(index == 0 ? "A" : "B") fails with \(Self.describe(error))")
            }
        }
        var allowed: Set<Int> = [log.acknowledged == 0 ? 0 : ChildWorkload.keyIndex(afterStep: log.acknowledged - 1)]
        if let step = log.inFlight { allowed.insert(ChildWorkload.keyIndex(afterStep: step)) }
        guard opening.count == 1, let index = opening.first else {
            problems.append("after \(log.acknowledged) rotations, \(opening.count) of keys A and B open the store")
            return nil
        }
        if !allowed.contains(index) {
            problems.append(
                "after \(log.acknowledged) acknowledged rotations key \(index == 0 ? "A" : "B") opens the store")
        }
        return keys[index]
    }

    /// An unencrypted store (a conversion's before or after): a key is refused with
    /// `keyUnexpected` and changes no byte.
    private func unencryptedRefusal(into problems: inout [String]) throws {
        let before = StoreSnapshot(of: trial.store)
        do {
            try Store.open(Fixtures.configuration(trial.store, keyFile: fixtures.keyA, create: false)).close()
            problems.append("an unencrypted store opened with a key")
        } catch let error as EncryptionError where error == .keyUnexpected {
        } catch {
            problems.append("opening the unencrypted store with a key: \(Self.describe(error))")
        }
        if let change = StoreSnapshot(of: trial.store).difference(from: before) {
            problems.append("opening with a key changed files: \(change)")
        }
    }

    /// Whether the store's metadata says it is encrypted.
    static func isEncrypted(_ store: String) throws -> Bool {
        guard let data = FileManager.default.contents(atPath: store + "/metadata.json"),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let encrypted = object["encrypted"] as? Bool
        else { throw HarnessError.setup("metadata.json of \(store) cannot be read") }
        return encrypted
    }

    /// No store (a killed create, a finished delete): opening creates a sound, empty one.
    private func checkFreshOpen(into problems: inout [String]) throws {
        let store: Store
        do {
            store = try Store.open(Fixtures.configuration(trial.store, keyFile: fixtures.keyA))
        } catch {
            problems.append("with no metadata, opening does not create a store: \(Self.describe(error))")
            return
        }
        defer { store.close() }
        try commonChecks(store, into: &problems)
        if try !store.collectionNames().isEmpty { problems.append("a store created anew has collections") }
    }

    /// Verification, and nothing staged or half-created left after the open.
    private func commonChecks(_ store: Store, into problems: inout [String]) throws {
        let report = try store.verify()
        problems += report.problems.map { "verify: \($0)" }
        let staging = (try? FileManager.default.contentsOfDirectory(atPath: trial.store + "/staging")) ?? []
        if !staging.isEmpty { problems.append("staging files survive the open: \(staging.sorted())") }
        for leftover in ["store.db.creating", "metadata.json.deleted"]
        where FileManager.default.fileExists(atPath: trial.store + "/" + leftover) {
            problems.append("\(leftover) survives the open")
        }
    }

    /// An error's type, case and message.
    static func describe(_ error: Error) -> String {
        "\(type(of: error)).\(error) — \((error as? LocalizedError)?.errorDescription ?? "")"
    }
}
