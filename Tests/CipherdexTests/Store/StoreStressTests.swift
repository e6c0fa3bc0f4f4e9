import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// One store under load for a fixed time: threads and tasks inserting, updating, removing and
/// finding documents, adding, reading and removing attachments, indexing and searching, verifying,
/// while other processes try to open it. No error is allowed but `storeLocked` for the other
/// processes, nothing may deadlock (a watchdog), and at the end every acknowledged write is in
/// the reopened store exactly. `CIPHERDEX_STRESS_SECONDS` sets the length (`make stress`).
final class StoreStressTests: XCTestCase {
    private static var duration: Double {
        ProcessInfo.processInfo.environment["CIPHERDEX_STRESS_SECONDS"].flatMap(Double.init) ?? 12
    }

    private var path = ""
    private var keyFile = ""
    private let ledger = StressLedger()

    override func setUp() {
        path = TestSupport.temporaryPath()
        keyFile = (path as NSString).deletingLastPathComponent + "/key"
        _ = FileManager.default.createFile(atPath: keyFile, contents: Data(TestSupport.rawKeyBytes(9)))
    }

    private var configuration: StoreConfiguration { TestSupport.configuration(path, key: TestSupport.rawKey(9)) }

    func testConcurrentWorkKeepsEveryAcknowledgedWrite() throws {
        let store = try Store.open(configuration)
        try store.createCollection("docs", indexedFields: ["n"])
        store.library.configure { $0.workerCount = 2 }
        let run = StoreStressRun(
            store: store, path: path, keyFile: keyFile, ledger: ledger,
            deadline: Date().addingTimeInterval(Self.duration))
        let outcome = Watchdog.finishing(within: Self.duration + 120) { try run.run() }
        if case .failure(let error)? = outcome { XCTFail("\(error)") }
        XCTAssertEqual(ledger.failures, [], "no unexpected error")
        let counts = ledger.counts
        print(
            "stress \(Self.duration) s:",
            counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        for operation in [
            "document writes", "document reads", "attachment adds", "attachment reads", "library adds", "searches",
            "verifications", "refused opens", "async transactions", "key rotations",
        ] {
            XCTAssertGreaterThan(counts[operation] ?? 0, 0, "\(operation) made progress")
        }
        guard outcome != nil else { return }
        store.close()
        try checkEverythingAcknowledged()
    }

    // MARK: The end

    private func checkEverythingAcknowledged() throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(ledger.finalKeySeed)))
        defer { store.close() }
        let docs = try store.collection("docs")
        for (id, version) in ledger.documentIDs() {
            ledger.check(try docs.get(id: id), id: id, acknowledgedBefore: .some(version), context: "reopened")
            if let version, let document = try docs.get(id: id) {
                XCTAssertEqual(
                    document.value, try JSONValue(parsing: StressLedger.documentJSON(id: id, version: version)), id)
            }
        }
        for (id, content) in ledger.liveAttachments() {
            XCTAssertEqual(
                try store.attachmentData(id), StressLedger.attachmentBytes(seed: content.seed, length: content.length),
                id)
        }
        for id in ledger.removedAttachmentIDs() {
            XCTAssertThrowsError(try store.attachment(id), "removed \(id) stays removed")
        }
        var options = SearchOptions()
        options.exactWordsOnly = true
        for (uid, word) in ledger.libraryDocuments() {
            if let word {
                XCTAssertEqual(try store.library.status(of: uid), .finished(pageCount: 2), uid)
                XCTAssertEqual(try store.library.search(word, options: options).rankedUIDs, [uid], uid)
            } else {
                XCTAssertEqual(try store.library.status(of: uid), .unknown, "removed \(uid)")
            }
        }
        XCTAssertEqual(ledger.failures, [], "reopened store holds every acknowledged write")
        XCTAssertEqual(try store.verify().problems, [])
    }
}
