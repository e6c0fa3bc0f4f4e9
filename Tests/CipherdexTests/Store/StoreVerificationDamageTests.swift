import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// A damaged database page: `verify` names the table that holds it (and still runs its other
/// steps), and a search that meets it is `storeCorrupted`, not an untyped database error.
final class StoreVerificationDamageTests: XCTestCase {
    func testADamagedPageIsNamedByItsTableAndASearchMeetingItIsStoreCorrupted() throws {
        let path = TestSupport.temporaryPath()
        var store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try store.createCollection("notes").insert(JSONValue.object(["body": .string("kept")]), id: "a")
        let file = TestSupport.temporaryPath("visit.txt")
        try "the consultation mentions xylophonist".write(toFile: file, atomically: true, encoding: .utf8)
        try store.library.add(fileAt: file, uid: "visit")
        try store.library.waitUntilIndexed()
        let root = try XCTUnwrap(
            try store.read {
                try $0.scalar("SELECT rootpage FROM sqlite_master WHERE name = 'search_text_segdir'")?.integerValue
            })
        store.close()
        // One flipped bit in the middle of that table's page.
        let database = try FileHandle(forUpdating: URL(fileURLWithPath: path + "/store.db"))
        let offset = UInt64(root - 1) * 16384 + 8000
        try database.seek(toOffset: offset)
        var byte = try XCTUnwrap(database.readData(ofLength: 1).first)
        byte ^= 0x10
        try database.seek(toOffset: offset)
        try database.write(contentsOf: Data([byte]))
        try database.close()

        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let report = try store.verify()
        XCTAssertTrue(report.problems.contains { $0.hasPrefix("table search_text_segdir: ") }, "\(report.problems)")
        XCTAssertFalse(report.problems.contains { $0.hasPrefix("table notes") }, "other tables still read")
        XCTAssertThrowsCase("storeCorrupted", try store.library.search("xylophonist"))
        XCTAssertEqual(try store.collection("notes").get(id: "a")?.id, "a")
        XCTAssertTrue(
            report.problems.contains { $0.hasSuffix("(their bytes were changed or damaged): page \(root)") },
            "the damaged page is named: \(report.problems)")
    }

    /// A damaged free page, which no query reads, is found and named too (SQLCipher 3.x has no
    /// `cipher_integrity_check`: `verify` said ok), and a healthy store's every page, the
    /// crash-left log's included, authenticates.
    func testADamagedFreePageIsFoundAndNamed() throws {
        let path = TestSupport.temporaryPath()
        var store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        let notes = try store.createCollection("notes")
        try notes.insert(JSONValue.object(["body": .string(String(repeating: "x", count: 400_000))]), id: "big")
        try notes.insert(JSONValue.object(["body": .string("kept")]), id: "a")
        try notes.remove(id: "big")
        let free = try XCTUnwrap(try store.read { try $0.scalar("PRAGMA freelist_count")?.integerValue })
        XCTAssertGreaterThan(free, 10)
        XCTAssertEqual(try store.verify().problems, [])
        let pages = try XCTUnwrap(try store.read { try $0.scalar("PRAGMA page_count")?.integerValue })
        store.close()
        let database = try FileHandle(forUpdating: URL(fileURLWithPath: path + "/store.db"))
        // The last pages of the file are the freed ones.
        let damaged = Int(pages) - 2
        let offset = UInt64(damaged - 1) * 16384 + 3000
        try database.seek(toOffset: offset)
        let byte = try XCTUnwrap(database.readData(ofLength: 1).first)
        try database.seek(toOffset: offset)
        try database.write(contentsOf: Data([byte ^ 0x01]))
        try database.close()

        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        XCTAssertEqual(try store.collection("notes").get(id: "a")?.id, "a")
        let problems = try store.verify().problems
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(
            problems.first?.hasSuffix(
                "page(s) of \(path)/store.db do not authenticate (their bytes were changed or "
                    + "damaged): page \(damaged)") == true, "\(problems)")
    }

    /// An index entry whose stored copy the store no longer has is a problem `verify` names
    /// (it said ok: review 27 finding 1 lost such a copy in silence).
    func testAStoredCopyTheStoreNoLongerHasIsAProblem() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let file = TestSupport.temporaryPath("visit.txt")
        try "the consultation mentions ocarinist".write(toFile: file, atomically: true, encoding: .utf8)
        try store.library.add(fileAt: file, uid: "visit")
        try store.library.waitUntilIndexed()
        XCTAssertTrue(try store.verify().isHealthy)
        let id = try XCTUnwrap(
            try store.read { try $0.scalar("SELECT attachment_id FROM search_documents")?.textValue })
        try store.write { db in try db.execute("DELETE FROM attachments WHERE id = ?", [.text(id)]) }
        try FileManager.default.removeItem(atPath: path + "/attachments/" + id)
        let report = try store.verify()
        XCTAssertEqual(
            report.problems, ["search holds attachment \(id) as a stored copy, but the store has no such attachment"])
    }
}
