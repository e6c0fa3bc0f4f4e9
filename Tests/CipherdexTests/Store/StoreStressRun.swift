import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The threads and tasks of `StoreStressTests`, each running its loop until the deadline and
/// recording what the store acknowledged (and anything unexpected) in the ledger.
final class StoreStressRun: @unchecked Sendable {
    private let store: Store
    private let path: String
    private let keyFile: String
    private let ledger: StressLedger
    private let deadline: Date

    init(store: Store, path: String, keyFile: String, ledger: StressLedger, deadline: Date) {
        self.store = store
        self.path = path
        self.keyFile = keyFile
        self.ledger = ledger
        self.deadline = deadline
    }

    /// Runs every loop on its own thread (and the async tasks) until the deadline, then waits for
    /// the index to be written.
    func run() throws {
        let group = DispatchGroup()
        for (index, name) in [
            "writer 0", "writer 1", "reader 0", "reader 1", "attachments", "library", "verify", "other processes",
            "key rotation",
        ].enumerated() {
            group.enter()
            Thread {
                self.loop(name, seed: UInt64(index))
                group.leave()
            }.start()
        }
        group.enter()
        Task {
            await self.runAsyncTasks()
            group.leave()
        }
        group.wait()
        try store.library.waitUntilIndexed()
    }

    private func loop(_ name: String, seed: UInt64) {
        var random = SplitMix64(seed: seed &* 0x9E37_79B9 &+ 7)
        var next = 0
        var attachmentSeed: UInt64 = 0
        while Date() < deadline {
            do {
                switch name {
                case "writer 0": try writeDocuments(0, &next, &random)
                case "writer 1": try writeDocuments(1, &next, &random)
                case "reader 0", "reader 1": try readDocuments(&random)
                case "attachments": try useAttachments(&attachmentSeed, &random)
                case "library": try useLibrary(&next, &random)
                case "verify": try verify()
                case "key rotation": try rotateKey(&next)
                default: try openFromAnotherProcess()
                }
            } catch {
                ledger.fail("\(name): \(error)")
            }
        }
    }

    // MARK: The loops

    private func writeDocuments(_ writer: Int, _ next: inout Int, _ random: inout SplitMix64) throws {
        let docs = try store.collection("docs")
        let choice = random.next() % 10
        let own = ledger.documentIDs().filter { $0.key.hasPrefix("w\(writer)-") && $0.value != nil }
        if choice < 5 || own.isEmpty {
            next += 1
            let id = "w\(writer)-\(next)"
            try ledger.documentWrite([(id, 1)]) {
                try docs.insert(id: id, json: StressLedger.documentJSON(id: id, version: 1))
            }
        } else if choice < 8 {
            let (id, version) = own.randomElement(using: &random)!
            let updated = version! + 1
            try ledger.documentWrite([(id, updated)]) {
                _ = try docs.upsert(id: id, json: StressLedger.documentJSON(id: id, version: updated))
            }
        } else if choice < 9 {
            let id = own.keys.randomElement(using: &random)!
            // Marked as running before the call: a reader may see the committed removal before
            // `documentWrite` acknowledges it.
            let removed = try ledger.documentWrite([(id, nil)]) { try docs.remove(id: id) }
            if !removed { ledger.fail("remove of acknowledged \(id) found nothing \(ledger.history(of: id))") }
        } else {
            next += 1
            let id = "w\(writer)-\(next)"
            let seed = 1_000_000 + UInt64(writer) << 32 + UInt64(next)
            let length = 1 + Int(random.next() % 100_000)
            let token = try ledger.documentWrite([(id, 1)]) {
                try store.transaction { tx in
                    let token = try tx.addAttachment(StressLedger.attachmentBytes(seed: seed, length: length))
                    try tx.collection("docs").insert(id: id, json: StressLedger.documentJSON(id: id, version: 1))
                    return token
                }
            }
            ledger.addAttachment(token.id, seed: seed, length: length)
        }
    }

    private func readDocuments(_ random: inout SplitMix64) throws {
        let docs = try store.collection("docs")
        let known = ledger.documentIDs()
        if random.next() % 2 == 0, let (id, version) = known.randomElement(using: &random) {
            let document = try docs.get(id: id)
            // Writer threads run on: a removal committed since `known` was taken (acknowledged or
            // still running) makes the document legitimately missing.
            if ledger.checkRead(document, id: id, acknowledgedBefore: .some(version), context: "get") {
                // Says whether the document was gone for good or for that one read, and whether the
                // writer connection holds it (committed or not) when a new snapshot does not.
                let again = try docs.get(id: id).map { "\($0.value)" } ?? "missing"
                let onWriter = try store.transaction { try $0.collection("docs").get(id: id) }.map { "\($0.value)" }
                ledger.fail("get: \(id) read again at once: \(again); on the writer: \(onWriter ?? "missing")")
            }
        } else {
            let threshold = Int(random.next() % 100)
            for document in try docs.find(where: [.greaterThanOrEqual("n", .number(JSONNumber(threshold)))], limit: 50)
            {
                ledger.checkRead(document, id: document.id, acknowledgedBefore: known[document.id], context: "find")
            }
        }
        ledger.count("document reads")
    }

    private func useAttachments(_ seed: inout UInt64, _ random: inout SplitMix64) throws {
        let live = ledger.liveAttachments()
        let choice = random.next() % 10
        if choice < 4 || live.isEmpty {
            seed += 1
            let length = 1 + Int(random.next() % 300_000)
            let token = try store.addAttachment(StressLedger.attachmentBytes(seed: seed, length: length))
            ledger.addAttachment(token.id, seed: seed, length: length)
        } else if choice < 8 {
            let (id, content) = live.randomElement(using: &random)!
            let expected = StressLedger.attachmentBytes(seed: content.seed, length: content.length)
            let reader = try store.attachment(id)
            if try reader.readAll() != expected { ledger.fail("attachment \(id) reads back different bytes") }
            if content.length > 10 {
                let start = Int(random.next() % UInt64(content.length - 10))
                let range = UInt64(start)..<UInt64(start + 10)
                if try reader.read(range: range) != expected[start..<(start + 10)] {
                    ledger.fail("attachment \(id) range \(range) reads back different bytes")
                }
            }
            ledger.count("attachment reads")
        } else if let id = live.filter({ $0.value.seed < 1_000_000 }).keys.randomElement(using: &random) {
            // Only attachments this loop added are removed (documents reference the others).
            guard try store.removeAttachment(id) else {
                return ledger.fail("removal of acknowledged \(id) found nothing")
            }
            ledger.removeAttachment(id)
            do {
                _ = try store.attachment(id)
                ledger.fail("removed attachment \(id) still opens")
            } catch AttachmentError.notFound {}
        }
    }

    private func useLibrary(_ next: inout Int, _ random: inout SplitMix64) throws {
        let library = ledger.libraryDocuments()
        let finished = try library.compactMap { uid, word -> (String, String)? in
            guard let word, case .finished = try store.library.status(of: uid) else { return nil }
            return (uid, word)
        }
        let choice = random.next() % 10
        if choice < 4 || finished.isEmpty {
            next += 1
            let uid = "notes/\(next).txt"
            let word = "qz\(next)stress"
            let text = "Page about \(word) and café.\n\u{0C}Second page, \(next) ünïcode."
            try store.library.add(data: Data(text.utf8), uid: uid, fileExtension: next % 2 == 0 ? "txt" : "md")
            ledger.setLibraryDocument(uid, word: word)
        } else if choice < 9 {
            let (uid, word) = finished.randomElement(using: &random)!
            var options = SearchOptions()
            options.exactWordsOnly = true
            let results = try store.library.search(word, options: options)
            if results.rankedUIDs != [uid] { ledger.fail("search \(word) found \(results.rankedUIDs), not \(uid)") }
            ledger.count("searches")
        } else {
            let (uid, _) = finished.randomElement(using: &random)!
            guard try store.library.remove(uid: uid) else {
                return ledger.fail("library remove of \(uid) found nothing")
            }
            ledger.setLibraryDocument(uid, word: nil)
        }
    }

    private func verify() throws {
        let report = try store.verify()
        if !report.isHealthy { ledger.fail("verify: \(report.problems)") }
        ledger.count("verifications")
        Thread.sleep(forTimeInterval: 0.5)
    }

    /// Rotates between two keys (the ledger's `finalKeySeed` says which one the store needs).
    private func rotateKey(_ rotations: inout Int) throws {
        rotations += 1
        let seed: UInt8 = rotations % 2 == 1 ? 10 : 9
        try store.rotateKey(to: TestSupport.rawKey(seed))
        ledger.setKeySeed(seed)
        Thread.sleep(forTimeInterval: 0.7)
    }

    private func openFromAnotherProcess() throws {
        for command in [["info", path], ["doc", "get", path, "docs", "w0-1"], ["verify", path]] {
            let result = try CipherdexProcess.run(command + ["--key-file", keyFile])
            if result.status != 16 || !result.stderr.hasPrefix("cipherdex: error: storeLocked: ") {
                ledger.fail("\(command[0]) from another process: \(result.status) \(result.stderr)")
            }
            ledger.count("refused opens")
        }
    }

    /// Async tasks: transactions through `performTransaction`, each on its own ids.
    private func runAsyncTasks() async {
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var next = 0
                    while Date() < self.deadline {
                        next += 1
                        let id = "a\(task)-\(next)"
                        let previous = next > 1 ? "a\(task)-\(next - 1)" : nil
                        let changes: [(id: String, version: Int?)] = [(id, 1)] + (previous.map { [($0, 2)] } ?? [])
                        do {
                            try await self.ledger.documentWrite(changes) {
                                try await self.store.performTransaction { tx in
                                    try tx.collection("docs").insert(
                                        id: id, json: StressLedger.documentJSON(id: id, version: 1))
                                    if let previous {
                                        _ = try tx.collection("docs").upsert(
                                            id: previous, json: StressLedger.documentJSON(id: previous, version: 2))
                                    }
                                }
                            }
                            self.ledger.count("async transactions")
                        } catch {
                            self.ledger.fail("async task \(task): \(error)")
                        }
                    }
                }
            }
        }
    }
}
