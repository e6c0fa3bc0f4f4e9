import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The victim: performs an operation's writes through the library, one after another, and
/// reports on standard output (a pipe to the parent) `begin N` before write N and `ack N [id]`
/// once the call returned, so the parent knows exactly which writes were acknowledged when the
/// kill landed. Every line is one `write(2)`, unbuffered.
struct ChildWorkload {
    /// The operation to perform.
    let operation: CrashOperation
    /// The trial's folder: `store/`, `ids` (attachment ids of the template), `folder/`.
    let trial: TrialLayout
    /// The shared inputs.
    let fixtures: Fixtures

    /// Runs every step; returns normally when all were acknowledged.
    func run() throws {
        switch operation {
        case .create:
            report("begin 0")
            try Store.open(Fixtures.configuration(trial.store, keyFile: fixtures.keyA)).close()
            report("ack 0")
        case .delete:
            report("begin 0")
            try Store.delete(at: trial.store)
            report("ack 0")
        case .encrypt:
            report("begin 0")
            let keyA = fixtures.keyA
            try Store.encrypt(
                Fixtures.configuration(trial.store, keyFile: nil, create: false),
                newKey: { try EncryptionKey.raw(contentsOfFile: keyA) })
            report("ack 0")
        case .decrypt:
            report("begin 0")
            try Store.decrypt(Fixtures.configuration(trial.store, keyFile: fixtures.keyA, create: false))
            report("ack 0")
        case .restore:
            report("begin 0")
            try Store.restore(
                Fixtures.configuration(trial.backup, keyFile: fixtures.keyA, create: false), to: trial.store,
                replacingExistingStore: true)
            report("ack 0")
        case .reencrypt:
            for step in 0..<operation.steps {
                report("begin \(step)")
                let keys = [fixtures.keyA, fixtures.keyB]
                let current = keys[step == 0 ? 0 : Self.keyIndex(afterStep: step - 1)]
                let next = keys[Self.keyIndex(afterStep: step)]
                try Store.reencrypt(
                    Fixtures.configuration(trial.store, keyFile: current, create: false),
                    newKey: { try EncryptionKey.raw(contentsOfFile: next) })
                report("ack \(step)")
            }
        default:
            let store = try Store.open(Fixtures.configuration(trial.store, keyFile: fixtures.keyA))
            for step in 0..<operation.steps {
                report("begin \(step)")
                let extra = try perform(step, on: store)
                report("ack \(step)" + (extra.map { " " + $0 } ?? ""))
            }
            store.close()
        }
        report("done")
    }

    /// Write `step`; returns what the parent needs to check it (an attachment id).
    private func perform(_ step: Int, on store: Store) throws -> String? {
        switch operation {
        case .docSmall:
            try store.collection("docs").insert(id: "s\(step)", json: Fixtures.smallDocument(step))
        case .docLarge:
            try store.collection("docs").insert(id: "L\(step)", json: Fixtures.largeDocument(step))
        case .docRemove:
            guard try store.collection("docs").remove(id: "r\(step)") else {
                throw HarnessError.setup("r\(step) missing")
            }
        case .attachSmall:
            return try store.addAttachment(fromFile: fixtures.small(step)).id
        case .attachLarge:
            return try store.addAttachment(fromFile: fixtures.large(step)).id
        case .detach:
            let id = try trial.templateIDs()[step]
            guard try store.removeAttachment(id) else { throw HarnessError.setup("attachment \(id) missing") }
        case .libraryAdd:
            try store.library.add(fileAt: fixtures.library(step))
            try store.library.waitUntilIndexed()
        case .folderIndex:
            try FileManager.default.createDirectory(atPath: trial.folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: fixtures.library(step), toPath: trial.folder + "/" + Fixtures.libraryName(step))
            _ = try store.library.sync(folder: trial.folder)
            try store.library.waitUntilIndexed()
        case .tokenizerChange:
            try store.library.setTokenizer(Self.tokenizer(afterStep: step))
        case .rekey:
            let next = Self.keyIndex(afterStep: step) == 0 ? fixtures.keyA : fixtures.keyB
            try store.rotateKey(to: { try EncryptionKey.raw(contentsOfFile: next) })
        case .collect:
            _ = try store.collectUnreferencedAttachments()
        case .backup:
            // Each backup differs from the last: one document more, one attachment fewer.
            try store.collection("docs").insert(id: "k\(step)", json: Fixtures.smallDocument(step))
            let id = try trial.templateIDs()[step]
            guard try store.removeAttachment(id) else { throw HarnessError.setup("attachment \(id) missing") }
            try store.backup(to: trial.backup)
        case .create, .delete, .reencrypt, .encrypt, .decrypt, .restore:
            break
        }
        return nil
    }

    /// The tokenizer after `tokenizerChange` step `step` (the template uses `.standard`).
    static func tokenizer(afterStep step: Int) -> SearchTokenizerKind {
        step % 2 == 0 ? .englishStemming : .standard
    }

    /// Which key (0: A, 1: B) opens the store after `rekey` or `reencrypt` step `step` (it
    /// starts with A).
    static func keyIndex(afterStep step: Int) -> Int { step % 2 == 0 ? 1 : 0 }

    /// Writes one line to standard output with a single `write(2)`.
    private func report(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
