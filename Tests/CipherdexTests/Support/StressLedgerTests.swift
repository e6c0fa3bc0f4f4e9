import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The stress ledger's read check, with the interleavings `StoreStressTests` hits by chance made
/// deterministic: a reader that runs between a removal's commit and its acknowledgement must not
/// report a loss, and a document gone with no removal must still be reported.
final class StressLedgerTests: XCTestCase {
    private var store: Store!
    private var docs: DocumentCollection!
    private let ledger = StressLedger()

    override func setUpWithError() throws {
        store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(3)))
        docs = try store.createCollection("docs")
        try ledger.documentWrite([("w0-1", 1)]) {
            try docs.insert(id: "w0-1", json: StressLedger.documentJSON(id: "w0-1", version: 1))
        }
    }

    override func tearDown() {
        store?.close()
    }

    /// The CI failure "get: acknowledged w0-17 v1 is missing": writer 0's removal of w0-17 had
    /// committed, a reader's get found nothing, and the writer had not yet recorded the removal.
    func testReadBetweenARemovalsCommitAndItsAcknowledgementIsNoLoss() throws {
        let known = ledger.documentIDs()
        try ledger.documentWrite([("w0-1", nil)]) {
            XCTAssertTrue(try docs.remove(id: "w0-1"))
            // The reader thread runs here: the removal is committed, not acknowledged.
            let read = try docs.get(id: "w0-1")
            XCTAssertNil(read)
            XCTAssertFalse(ledger.checkRead(read, id: "w0-1", acknowledgedBefore: known["w0-1"], context: "get"))
        }
        XCTAssertEqual(ledger.failures, [])
        XCTAssertEqual(ledger.counts["reads racing a removal"], 1)
        // Once acknowledged, the missing document is simply removed.
        XCTAssertFalse(ledger.checkRead(nil, id: "w0-1", acknowledgedBefore: known["w0-1"], context: "get"))
        XCTAssertEqual(ledger.failures, [])
    }

    /// An update running alongside changes nothing: a missing document is a loss.
    func testDocumentMissingWithNoRemovalIsReportedWithItsHistory() throws {
        let known = ledger.documentIDs()
        try ledger.documentWrite([("w0-1", 2)]) {
            // Gone behind the ledger's back (what a lost write looks like).
            XCTAssertTrue(try docs.remove(id: "w0-1"))
            XCTAssertTrue(
                ledger.checkRead(
                    try docs.get(id: "w0-1"), id: "w0-1", acknowledgedBefore: known["w0-1"], context: "get"))
        }
        XCTAssertEqual(ledger.failures.count, 1)
        let failure = try XCTUnwrap(ledger.failures.first)
        XCTAssertTrue(failure.hasPrefix("get: acknowledged w0-1 v1 is missing [history of w0-1: +"), failure)
        XCTAssertTrue(failure.contains("v1 begun, +"), failure)
        XCTAssertTrue(failure.hasSuffix(" v2 begun]"), failure)
        XCTAssertNil(ledger.counts["reads racing a removal"])
    }

    /// A failed write acknowledges nothing and leaves no running mark behind.
    func testFailedRemovalAcknowledgesNothing() throws {
        struct Refused: Error {}
        let known = ledger.documentIDs()
        XCTAssertThrowsError(try ledger.documentWrite([("w0-1", nil)]) { throw Refused() })
        XCTAssertEqual(ledger.documentIDs()["w0-1"], .some(1))
        XCTAssertTrue(ledger.history(of: "w0-1").hasSuffix(" remove failed]"), ledger.history(of: "w0-1"))
        XCTAssertTrue(ledger.checkRead(nil, id: "w0-1", acknowledgedBefore: known["w0-1"], context: "get"))
    }

    /// Reads are still held to what was acknowledged before them: an older version is reported.
    func testOlderVersionIsReported() throws {
        try ledger.documentWrite([("w0-1", 2)]) {
            _ = try docs.upsert(id: "w0-1", json: StressLedger.documentJSON(id: "w0-1", version: 2))
        }
        let stale = try JSONValue(parsing: StressLedger.documentJSON(id: "w0-1", version: 1))
        XCTAssertTrue(
            ledger.checkRead(
                Document(uncheckedID: "w0-1", value: stale), id: "w0-1", acknowledgedBefore: .some(2), context: "get"))
        XCTAssertTrue(ledger.failures.first?.hasPrefix("get: w0-1 reads back older than v2") == true)
        XCTAssertFalse(
            ledger.checkRead(try docs.get(id: "w0-1"), id: "w0-1", acknowledgedBefore: .some(2), context: "get"))
    }
}
