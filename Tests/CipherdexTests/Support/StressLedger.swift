import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// What a stress run acknowledged, shared by its threads: every write goes in only once the store
/// has returned from it, so at the end (and during the run, for what was acknowledged before a
/// read began) each entry must be in the store exactly.
///
/// A document write is also marked while it runs (`documentWrite`): between its commit and its
/// acknowledgement another thread's read may already see it, so a read that finds a document
/// missing is a loss only when no removal of it was acknowledged or running by the time the read
/// returned (`checkRead`). Each document keeps the times of its last writes, printed with any
/// failure about it.
final class StressLedger: @unchecked Sendable {
    /// A document's last acknowledged version (nil: removed).
    private var documents: [String: Int?] = [:]
    /// Document writes begun and not yet acknowledged or failed: id to the versions being written
    /// (nil: a removal).
    private var pending: [String: [Int?]] = [:]
    /// A document's last writes, oldest first ("+1.204 s remove begun"), for failure messages.
    private var history: [String: [String]] = [:]
    private let start = Date()
    /// Attachments acknowledged and not removed, id to the seed and length of their content.
    private var attachments: [String: (seed: UInt64, length: Int)] = [:]
    private var removedAttachments: Set<String> = []
    /// Library documents acknowledged as added, UID to its unique word (nil: removed).
    private var library: [String: String?] = [:]
    private var unexpected: [String] = []
    /// The seed of the raw key the store was last rotated to.
    private var keySeed: UInt8 = 9
    private var operations: [String: Int] = [:]
    private let lock = NSLock()

    /// The exact JSON of version `version` of document `id`.
    static func documentJSON(id: String, version: Int) -> Data {
        let text = "é\u{301} \(id) v\(version) " + String(repeating: "ü", count: version % 17)
        return Data(
            #"{"id":"\#(id)","version":\#(version),"n":\#(version * 7 % 100),"big":12345678901234567890\#(version),"text":"\#(text)","nested":{"a":[1,2.5,true,null]}}"#
                .utf8)
    }

    /// The content of the attachment made from `seed`.
    static func attachmentBytes(seed: UInt64, length: Int) -> Data {
        var generator = SplitMix64(seed: seed)
        var bytes = [UInt8](repeating: 0, count: length)
        for index in 0..<length { bytes[index] = UInt8(truncatingIfNeeded: generator.next()) }
        return Data(bytes)
    }

    func setDocument(_ id: String, version: Int?) {
        lock.withLock {
            documents[id] = .some(version)
            operations["document writes", default: 0] += 1
            record(id, "\(Self.describe(version)) acknowledged")
        }
    }

    /// Runs `write`, a store call that writes `changes` (document id, version; nil: a removal),
    /// with them marked as running, and acknowledges them once it returns; a throwing `write`
    /// acknowledges nothing. The marks go only after the acknowledgement.
    func documentWrite<T>(_ changes: [(id: String, version: Int?)], _ write: () throws -> T) rethrows -> T {
        begin(changes)
        var acknowledged = false
        defer { end(changes, acknowledged: acknowledged) }
        let result = try write()
        for change in changes { setDocument(change.id, version: change.version) }
        acknowledged = true
        return result
    }

    /// `documentWrite` for an async store call.
    func documentWrite<T>(_ changes: [(id: String, version: Int?)], _ write: () async throws -> T) async rethrows
        -> T
    {
        begin(changes)
        var acknowledged = false
        defer { end(changes, acknowledged: acknowledged) }
        let result = try await write()
        for change in changes { setDocument(change.id, version: change.version) }
        acknowledged = true
        return result
    }

    private func begin(_ changes: [(id: String, version: Int?)]) {
        lock.withLock {
            for change in changes {
                pending[change.id, default: []].append(change.version)
                record(change.id, "\(Self.describe(change.version)) begun")
            }
        }
    }

    private func end(_ changes: [(id: String, version: Int?)], acknowledged: Bool) {
        lock.withLock {
            for change in changes {
                if let index = pending[change.id]?.firstIndex(where: { $0 == change.version }) {
                    pending[change.id]?.remove(at: index)
                }
                if pending[change.id]?.isEmpty == true { pending[change.id] = nil }
                if !acknowledged { record(change.id, "\(Self.describe(change.version)) failed") }
            }
        }
    }

    /// Appends to a document's history (the lock is held); the last 8 entries are kept.
    private func record(_ id: String, _ event: String) {
        let elapsed = String(format: "+%.3f s", Date().timeIntervalSince(start))
        history[id, default: []].append("\(elapsed) \(event)")
        if history[id]!.count > 8 { history[id]!.removeFirst() }
    }

    private static func describe(_ version: Int?) -> String { version.map { "v\($0)" } ?? "remove" }

    /// The document's last writes, for a failure message.
    func history(of id: String) -> String {
        lock.withLock { "[history of \(id): " + (history[id] ?? []).joined(separator: ", ") + "]" }
    }

    func document(_ id: String) -> Int?? { lock.withLock { documents[id] } }

    func documentIDs() -> [String: Int?] { lock.withLock { documents } }

    func addAttachment(_ id: String, seed: UInt64, length: Int) {
        lock.withLock {
            attachments[id] = (seed, length)
            operations["attachment adds", default: 0] += 1
        }
    }

    func removeAttachment(_ id: String) {
        lock.withLock {
            attachments.removeValue(forKey: id)
            removedAttachments.insert(id)
            operations["attachment removals", default: 0] += 1
        }
    }

    func liveAttachments() -> [String: (seed: UInt64, length: Int)] { lock.withLock { attachments } }

    func removedAttachmentIDs() -> Set<String> { lock.withLock { removedAttachments } }

    func setLibraryDocument(_ uid: String, word: String?) {
        lock.withLock {
            library[uid] = .some(word)
            operations[word == nil ? "library removals" : "library adds", default: 0] += 1
        }
    }

    func libraryDocuments() -> [String: String?] { lock.withLock { library } }

    func setKeySeed(_ seed: UInt8) {
        lock.withLock {
            keySeed = seed
            operations["key rotations", default: 0] += 1
        }
    }

    var finalKeySeed: UInt8 { lock.withLock { keySeed } }

    func count(_ operation: String) {
        lock.withLock { operations[operation, default: 0] += 1 }
    }

    func fail(_ message: String) {
        lock.withLock { if unexpected.count < 50 { unexpected.append(message) } }
    }

    var failures: [String] { lock.withLock { unexpected } }
    var counts: [String: Int] { lock.withLock { operations } }

    /// Checks a read of document `id` made while writers run: `document` (nil: absent) against
    /// `acknowledgedBefore`, the ledger's entry when the read began. A removal that committed
    /// before the read but is not acknowledged yet makes the document legitimately missing: it
    /// is running then (marked by `documentWrite`), or acknowledged by the time this looks.
    /// Returns whether a failure was recorded.
    @discardableResult
    func checkRead(_ document: Document?, id: String, acknowledgedBefore: Int??, context: String) -> Bool {
        if document == nil, case .some(.some) = acknowledgedBefore {
            let (current, removing) = lock.withLock { (documents[id], pending[id]?.contains(where: { $0 == nil })) }
            if current == .some(nil) { return false }
            if removing == true {
                // What the check before `documentWrite` reported as a loss (w0-17 in CI).
                count("reads racing a removal")
                return false
            }
        }
        return check(document, id: id, acknowledgedBefore: acknowledgedBefore, context: context)
    }

    /// Checks a document read back against what was acknowledged before the read began (with no
    /// write of it running: at the end of a run). Returns whether a failure was recorded.
    @discardableResult
    func check(_ document: Document?, id: String, acknowledgedBefore: Int??, context: String) -> Bool {
        let problem: String?
        switch acknowledgedBefore {
        case .none:
            problem = nil
        case .some(.none):
            problem = document == nil ? nil : "\(context): \(id) was removed but reads back"
        case .some(.some(let version)):
            if let document {
                if case .number(let number)? = document.value[path: "version"],
                    let read = number.int64Value.map(Int.init), read >= version
                {
                    let expected = try? JSONValue(parsing: Self.documentJSON(id: id, version: read))
                    problem =
                        document.value == expected ? nil : "\(context): \(id) v\(read) reads back \(document.value)"
                } else {
                    problem = "\(context): \(id) reads back older than v\(version): \(document.value)"
                }
            } else {
                problem = "\(context): acknowledged \(id) v\(version) is missing"
            }
        }
        guard let problem else { return false }
        fail(problem + " " + history(of: id))
        return true
    }
}

/// Runs the `cipherdex` executable built beside the tests and returns its status and stderr.
enum CipherdexProcess {
    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        var url = Bundle(for: StressLedger.self).bundleURL
        while url.pathExtension == "xctest" || url.lastPathComponent == "Contents" { url.deleteLastPathComponent() }
        let process = Process()
        process.executableURL = url.appendingPathComponent("cipherdex")
        process.arguments = arguments
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let bytes = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: bytes, as: UTF8.self))
    }
}
