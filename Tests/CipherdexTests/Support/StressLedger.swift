import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// What a stress run acknowledged, shared by its threads: every write goes in only once the store
/// has returned from it, so at the end (and during the run, for what was acknowledged before a
/// read began) each entry must be in the store exactly.
final class StressLedger: @unchecked Sendable {
    /// A document's last acknowledged version (nil: removed).
    private var documents: [String: Int?] = [:]
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
        }
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

    /// Checks a document read back against what was acknowledged before the read began.
    func check(_ document: Document?, id: String, acknowledgedBefore: Int??, context: String) {
        switch acknowledgedBefore {
        case .none:
            return
        case .some(.none):
            if document != nil { fail("\(context): \(id) was removed but reads back") }
        case .some(.some(let version)):
            guard let document else { return fail("\(context): acknowledged \(id) v\(version) is missing") }
            guard case .number(let number)? = document.value[path: "version"],
                let read = number.int64Value.map(Int.init),
                read >= version
            else { return fail("\(context): \(id) reads back older than v\(version): \(document.value)") }
            let expected = try? JSONValue(parsing: Self.documentJSON(id: id, version: read))
            if document.value != expected { fail("\(context): \(id) v\(read) reads back \(document.value)") }
        }
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
