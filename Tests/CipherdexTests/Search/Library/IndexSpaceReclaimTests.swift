import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Removing documents gives their space back: FTS4 merges drop the removed postings and
/// incremental auto-vacuum returns free pages, so the database file shrinks.
final class IndexSpaceReclaimTests: XCTestCase {
    /// A text document of about 24 KiB: words shared by all documents and words of its own.
    private func document(_ number: Int) -> Data {
        var words: [String] = []
        var seed = UInt64(number) &* 6_364_136_223_846_793_005 &+ 1
        for index in 0..<3_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            words.append(index % 3 == 0 ? "common\(seed >> 60)" : "w\(String(seed >> 40, radix: 36))")
        }
        words.append(Self.marker(number))
        return Data(words.joined(separator: " ").utf8)
    }

    /// A word only document `number` holds, of fixed length (no other marker starts with it).
    private static func marker(_ number: Int) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        return "mark" + String([letters[number / 676 % 26], letters[number / 26 % 26], letters[number % 26]])
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    func testNewStoresUseIncrementalAutoVacuum() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        XCTAssertEqual(try store.read { try $0.scalar("PRAGMA auto_vacuum") }, .integer(2))
    }

    func testReencryptionGivesTheNewGenerationIncrementalAutoVacuum() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        // A store of before this change: auto_vacuum NONE (VACUUM rewrites it in place).
        try store.write { db in
            try db.execute("PRAGMA auto_vacuum = NONE")
            try db.execute("VACUUM")
        }
        XCTAssertEqual(try store.read { try $0.scalar("PRAGMA auto_vacuum") }, .integer(0))
        store.close()
        try Store.reencrypt(TestSupport.configuration(path, key: TestSupport.rawKey(1)), newKey: TestSupport.rawKey(2))
        let converted = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        defer { converted.close() }
        XCTAssertEqual(try converted.read { try $0.scalar("PRAGMA auto_vacuum") }, .integer(2))
    }

    /// When the index writer runs out of work, free pages (what FTS4's merges leave after bulk
    /// indexing; here a dropped scratch table's) go back to the file system.
    func testAnIdleIndexWriterGivesBackFreePages() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try store.library.add(data: document(0), uid: "doc0.txt", fileExtension: "txt")
        store.library.waitUntilIdle()
        try store.write { db in
            try db.execute("CREATE TABLE scratch (x BLOB)")
            for _ in 0..<400 { try db.execute("INSERT INTO scratch VALUES (randomblob(8000))") }
            try db.execute("DROP TABLE scratch")
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let free = try XCTUnwrap(try store.read { try $0.scalar("PRAGMA freelist_count")?.integerValue })
        XCTAssertGreaterThan(free, Int64(IndexSpaceReclaim.idleFreePages))
        let before = fileSize(path + "/store.db")
        try store.library.add(data: document(1), uid: "doc1.txt", fileExtension: "txt")
        store.library.waitUntilIdle()
        XCTAssertEqual(try store.read { try $0.scalar("PRAGMA freelist_count")?.integerValue }, 0)
        XCTAssertLessThan(fileSize(path + "/store.db"), before - 2_000_000)
        XCTAssertEqual(Set(try store.library.search(Self.marker(1)).documents.keys), ["doc1.txt"])
    }

    func testRemovingMostDocumentsShrinksTheFileAndKeepsTheRest() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        let count = 120
        for number in 0..<count {
            try store.library.add(data: document(number), uid: "doc\(number).txt", fileExtension: "txt")
        }
        store.library.waitUntilIdle()
        let kept = stride(from: 0, to: count, by: 10).map { $0 }
        let queries = kept.map { Self.marker($0) }
        let keptOnly = try queries.map { try store.library.search($0).documents }
        store.close()
        let full = fileSize(path + "/store.db")

        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        reopened.library.configure { $0.pdfExtraction = .inProcess }
        for number in 0..<count where !kept.contains(number) {
            XCTAssertTrue(try reopened.library.remove(uid: "doc\(number).txt"))
        }
        XCTAssertEqual(try queries.map { try reopened.library.search($0).documents }, keptOnly)
        for number in kept {
            XCTAssertEqual(
                try reopened.library.search(Self.marker(number)).documents.keys.sorted(), ["doc\(number).txt"])
        }
        XCTAssertEqual(try reopened.library.search("common3").documents.count, kept.count)
        reopened.close()
        let after = fileSize(path + "/store.db")
        // 90% of the documents removed: the file is at most 40% of its full size.
        XCTAssertLessThanOrEqual(after * 10, full * 4, "store.db \(full) → \(after) bytes")
    }

    /// The merge path (an index above the optimize limit): merges and vacuum alone shrink it.
    func testMergesAndVacuumShrinkALargeIndex() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        let count = 120
        for number in 0..<count {
            try store.library.add(data: document(number), uid: "doc\(number).txt", fileExtension: "txt")
        }
        store.library.waitUntilIdle()
        let kept = stride(from: 0, to: count, by: 10).map { $0 }
        let before = try kept.map { try store.library.search(Self.marker($0)).documents }
        // Removed without the library's reclaim, then reclaimed once as a large index would be.
        for number in 0..<count where !kept.contains(number) {
            XCTAssertTrue(try store.transaction { try SearchIndexWriter.remove(uid: "doc\(number).txt", tx: $0) })
        }
        try store.write { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        let removed = fileSize(path + "/store.db")
        let segments = { try store.read { try $0.scalar("SELECT count(*) FROM search_text_segdir")?.integerValue } }
        let segmentsBefore = try XCTUnwrap(try segments())
        IndexSpaceReclaim.run(store: store, removedPages: count - kept.count, optimizeRowLimit: 0)
        try store.write { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        XCTAssertLessThan(try XCTUnwrap(try segments()), segmentsBefore)
        XCTAssertEqual(try store.read { try $0.scalar("PRAGMA freelist_count") }, .integer(0))
        let after = fileSize(path + "/store.db")
        XCTAssertLessThanOrEqual(after * 2, removed, "store.db \(removed) → \(after) bytes")
        XCTAssertEqual(try kept.map { try store.library.search(Self.marker($0)).documents }, before)
    }
}
