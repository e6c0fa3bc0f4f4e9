import CSQLCipher
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `SearchIndexWriter`'s page rows go in without a statement journal (issue 12: with
/// `search_pages`' triggers a plain `INSERT` journalled two encrypted 16 KiB pages a row, a
/// quarter of indexing's CPU), and a write that fails part-way still leaves nothing behind.
final class SearchIndexWriterTests: XCTestCase {
    private var store: Store!

    override func setUpWithError() throws {
        (store, _) = try SearchLibraryTestSupport.store()
        store.library.configure { $0.extractors["note"] = NoteExtractor() }
    }

    override func tearDown() {
        store?.close()
    }

    /// Adds a document of `pages` one-line pages and waits for it.
    private func add(_ uid: String, pages: Int) throws {
        let lines = (0..<pages).map { "page \($0) of \(uid) with some words to index" }
        try store.library.add(data: Data(lines.joined(separator: "\n").utf8), uid: uid, fileExtension: "note")
        store.library.waitUntilIdle()
    }

    /// The most memory SQLite held while `body` ran, above what it held when `body` began.
    private func sqliteMemoryPeak(_ body: () throws -> Void) rethrows -> Int64 {
        var current: Int64 = 0
        var highwater: Int64 = 0
        // Resetting sets the high-water mark to what is in use now.
        sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &highwater, 1)
        let start = current
        try body()
        sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &highwater, 0)
        return highwater - start
    }

    private struct RollBack: Error {}

    /// In a transaction, the writer's page-row insert holds no journal copy of the pages it
    /// changes; the same insert without `OR FAIL` does (the control: two 16 KiB pages, the
    /// table's and its `uid` index's), so the measure sees a statement journal when there is one.
    func testPageRowsAreInsertedWithoutAStatementJournal() throws {
        try add("doc-a", pages: 300)
        let found = try store.library.search("doc").documents
        XCTAssertEqual(found["doc-a"]?.count, 300)
        let plainSQL = SearchIndexWriter.pageRowInsertSQL.replacingOccurrences(of: "INSERT OR FAIL", with: "INSERT")
        XCTAssertNotEqual(plainSQL, SearchIndexWriter.pageRowInsertSQL)
        var withFail: [Int64] = []
        var plain: [Int64] = []
        XCTAssertThrowsError(
            try store.write { db in
                try db.transaction {
                    for row in 0..<5 {
                        let arguments: [SQLValue] = [.text("doc-b"), .int(row), .int(0), .int(0), .int(0)]
                        // Each statement prepared (and cached) before it is measured.
                        withFail.append(
                            try sqliteMemoryPeak { try db.execute(SearchIndexWriter.pageRowInsertSQL, arguments) })
                        plain.append(try sqliteMemoryPeak { try db.execute(plainSQL, arguments) })
                    }
                    throw RollBack()
                }
            }
        ) { XCTAssertTrue($0 is RollBack) }
        let page = Int64(CipherSettings.default.pageSize)
        // The first of each may allocate for the statement's first run; the rest must not journal.
        for (index, peak) in withFail.enumerated().dropFirst() {
            XCTAssertLessThan(peak, page, "OR FAIL insert \(index): \(withFail)")
        }
        for (index, peak) in plain.enumerated().dropFirst() {
            XCTAssertGreaterThanOrEqual(peak, 2 * page, "plain insert \(index): \(plain)")
        }
        // Nothing of the rolled-back transaction remains, and the index is whole.
        let rows = try store.read {
            try $0.scalar("SELECT count(*) FROM search_pages WHERE uid = 'doc-b'")?.integerValue
        }
        XCTAssertEqual(rows, 0)
        XCTAssertEqual(try store.library.search("doc").documents, found)
    }

    /// A page-row insert that fails (a NOT NULL column left NULL) inside the writer's transaction:
    /// with `OR FAIL` the statement keeps nothing of its own either way, the error reaches the
    /// caller, and rolling the transaction back leaves the index as it was.
    func testAFailedPageRowLeavesNothing() throws {
        try add("doc-a", pages: 20)
        let found = try store.library.search("doc").documents
        XCTAssertEqual(found["doc-a"]?.count, 20)
        let before = try store.read {
            try $0.rows("SELECT rowid, uid, page_index FROM search_pages ORDER BY rowid").map { "\($0)" }
        }
        XCTAssertThrowsError(
            try store.write { db in
                try db.transaction {
                    try SearchIndexWriter.insert(uid: "doc-c", page: 0, kind: 0, ordinal: 0, text: "first page", db: db)
                    try db.execute(
                        SearchIndexWriter.pageRowInsertSQL, [.text("doc-c"), .null, .int(0), .int(0), .int(0)])
                }
            }
        ) { error in
            XCTAssertTrue(String(describing: error).contains("NOT NULL"), "\(error)")
        }
        let after = try store.read {
            try $0.rows("SELECT rowid, uid, page_index FROM search_pages ORDER BY rowid").map { "\($0)" }
        }
        XCTAssertEqual(after, before)
        XCTAssertEqual(try store.library.search("first").documents, [:])
        XCTAssertEqual(try store.library.search("doc").documents, found)
    }
}
