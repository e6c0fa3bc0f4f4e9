import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Issue 12, search migration 1005: `search_page_runs` gives every `search_pages` row's facts
/// through every write (the library's adds, annotations, removals and OCR pages; random inserts,
/// updates and deletes; a savepoint rolled back; a store that had no runs), and a search's rows
/// are described from it exactly as from `search_pages`.
final class PageRunsTests: XCTestCase {
    private var store: Store!
    private var path: String!
    private var seeded = SeededWords(seed: 1005)

    override func setUpWithError() throws {
        (store, path) = try SearchLibraryTestSupport.store()
        store.library.configure { $0.extractors["note"] = NoteExtractor() }
    }

    override func tearDown() {
        store?.close()
    }

    /// Every row of `search_pages`, in rowid order.
    private func pageRows(_ store: Store) throws -> [PageRuns.Row] {
        try store.read { db in
            try db.rows("SELECT rowid, uid, page_index, kind, ordinal, is_ocr FROM search_pages ORDER BY rowid").map {
                PageRuns.Row(
                    rowid: $0[0].integerValue ?? -1, uid: $0[1].textValue ?? "", pageIndex: $0[2].integerValue ?? -1,
                    kind: $0[3].integerValue ?? -1, ordinal: $0[4].integerValue ?? -1, isOCR: $0[5].integerValue ?? -1)
            }
        }
    }

    private func assertInStep(_ label: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let rows = try pageRows(store)
        let (described, covered, runs) = try store.read { db in
            (
                try PageRuns.rows(rows.map(\.rowid), db: db),
                try db.scalar("SELECT coalesce(sum(count), 0) FROM search_page_runs")?.integerValue,
                try db.scalar("SELECT count(*) FROM search_page_runs")?.integerValue ?? 0
            )
        }
        XCTAssertEqual(described, rows, label, file: file, line: line)
        // No run covers a row that is not there, and no two runs could be one.
        XCTAssertEqual(covered, Int64(rows.count), label, file: file, line: line)
        var expectedRuns = 0
        for (index, row) in rows.enumerated() {
            let previous = index > 0 ? rows[index - 1] : nil
            let joins =
                previous.map {
                    row.rowid == $0.rowid + 1 && row.pageIndex == $0.pageIndex + 1 && row.uid == $0.uid
                        && row.kind == $0.kind && row.ordinal == $0.ordinal && row.isOCR == $0.isOCR
                } ?? false
            if !joins { expectedRuns += 1 }
        }
        XCTAssertEqual(runs, Int64(expectedRuns), label, file: file, line: line)
        // A random part, as a search describes it (ascending docids, some not in the table).
        var part = rows.map(\.rowid).filter { _ in seeded.number(3) == 0 }
        part += [0, (rows.last?.rowid ?? 0) + 5]
        let partRows = try store.read { try PageRuns.rows(part.sorted(), db: $0) }
        XCTAssertEqual(partRows, rows.filter { Set(part).contains($0.rowid) }, label, file: file, line: line)
    }

    private func add(_ uid: String, pages: Int, annotations: Bool = false) throws {
        let lines = (0..<pages).flatMap { page -> [String] in
            let text = "page \(page) " + (0..<8).map { _ in seeded.word() }.joined(separator: " ")
            return annotations && page % 2 == 1 ? [text, ">> a note on \(page)", ">> another"] : [text]
        }
        try store.library.add(data: Data(lines.joined(separator: "\n").utf8), uid: uid, fileExtension: "note")
    }

    func testTheRunsFollowTheLibrarysWrites() throws {
        try add("alpha.note", pages: 40)
        try add("beta.note", pages: 7, annotations: true)
        try add("gamma.note", pages: 1)
        store.library.waitUntilIdle()
        try assertInStep("added")
        let runs = try store.read { try $0.scalar("SELECT count(*) FROM search_page_runs WHERE uid = 'alpha.note'") }
        XCTAssertEqual(runs?.integerValue, 1, "a document's pages are one run")
        // Re-indexed with other content, an OCR page replacing a page in the middle, a removal.
        try add("alpha.note", pages: 12, annotations: true)
        store.library.waitUntilIdle()
        try assertInStep("re-indexed")
        try store.write { db in
            try db.transaction {
                try db.execute(
                    "DELETE FROM search_text WHERE docid IN (SELECT rowid FROM search_pages WHERE uid = 'beta.note' AND page_index = 3 AND kind = 0)"
                )
                try db.execute("DELETE FROM search_pages WHERE uid = 'beta.note' AND page_index = 3 AND kind = 0")
                try SearchIndexWriter.insert(
                    uid: "beta.note", page: 3, kind: 0, ordinal: 0, text: "recognised text", isOCR: true, db: db)
            }
        }
        try assertInStep("an OCR page")
        try store.library.remove(uid: "gamma.note")
        store.library.waitUntilIdle()
        try assertInStep("removed")
        try store.library.setTokenizer(.englishStemming)
        try assertInStep("tokenizer changed")
        try store.library.removeAll()
        store.library.waitUntilIdle()
        let left = try store.read { try $0.scalar("SELECT count(*) FROM search_page_runs")?.integerValue }
        XCTAssertEqual(left, 0)
    }

    /// Random inserts, updates and deletes of `search_pages` rows in transactions, one with a
    /// savepoint rolled back; a write outside a transaction is refused and leaves nothing.
    func testTheRunsFollowRandomWrites() throws {
        let uids = ["a", "b", "c", "d é"]
        for round in 0..<30 {
            try store.write { db in
                try db.transaction {
                    for _ in 0..<(1 + seeded.number(40)) {
                        let uid = uids[seeded.number(uids.count)]
                        switch seeded.number(5) {
                        case 0, 1:
                            // A run of pages, as the indexer writes them.
                            let first = seeded.number(5)
                            for page in first..<(first + 1 + seeded.number(12)) {
                                try db.execute(
                                    "INSERT INTO search_pages (uid, page_index, kind, ordinal, is_ocr) VALUES (?, ?, ?, ?, ?)",
                                    [
                                        .text(uid), .int(page), .int(seeded.number(4) == 0 ? 1 : 0),
                                        .int(seeded.number(2)),
                                        .int(seeded.number(6) == 0 ? 1 : 0),
                                    ])
                            }
                        case 2:
                            try db.execute(
                                "DELETE FROM search_pages WHERE rowid IN (SELECT rowid FROM search_pages ORDER BY random() LIMIT 3)"
                            )
                        case 3:
                            try db.execute(
                                """
                                UPDATE search_pages SET uid = ?, is_ocr = 1 - is_ocr
                                WHERE rowid IN (SELECT rowid FROM search_pages ORDER BY random() LIMIT 2)
                                """, [.text(uid)])
                        default:
                            try db.execute("SAVEPOINT inner")
                            try db.execute("DELETE FROM search_pages WHERE uid = ?", [.text(uid)])
                            try db.execute("ROLLBACK TO inner")
                            try db.execute("RELEASE inner")
                        }
                    }
                }
            }
            try assertInStep("round \(round)")
        }
        let before = try pageRows(store)
        XCTAssertThrowsError(
            try store.write { db in try db.execute("DELETE FROM search_pages WHERE uid = 'a'") }
        ) { XCTAssertEqual(($0 as? DatabaseError)?.code, 19, "the commit hook refuses the commit") }
        XCTAssertEqual(try pageRows(store), before)
        try assertInStep("after the refused write")
    }

    func testAStoreWithoutTheRunsGetsThemAtOpen() throws {
        try add("alpha.note", pages: 30, annotations: true)
        try add("beta.note", pages: 3)
        store.library.waitUntilIdle()
        let expected = try store.library.search("page")
        try store.write { db in
            for trigger in SearchTableChanges.triggerNames(prefix: PageRuns.triggerPrefix) {
                try db.execute("DROP TRIGGER \(trigger)")
            }
            try db.execute("DROP TABLE search_page_runs")
            try db.execute("DELETE FROM cipherdex_schema WHERE version = 1005")
        }
        store.close()
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        store.library.configure { $0.extractors["note"] = NoteExtractor() }
        XCTAssertEqual(try store.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
        try assertInStep("migrated")
        let after = try store.library.search("page")
        XCTAssertEqual(after.previews.map(\.uid), expected.previews.map(\.uid))
        XCTAssertEqual(after.previews.map(\.pageIndex), expected.previews.map(\.pageIndex))
        XCTAssertEqual(after.previews.map(\.annotationIndex), expected.previews.map(\.annotationIndex))
        XCTAssertEqual(after.previews.map(\.score), expected.previews.map(\.score))
    }

    /// A damaged run (a count or page index at the ends of Int64, a negative count) gives wrong
    /// facts at worst, never a trap.
    func testDamagedRunsDoNotTrap() throws {
        try add("alpha.note", pages: 5)
        store.library.waitUntilIdle()
        for damage in [
            "count = 9223372036854775807", "count = -5", "page_index = 9223372036854775807",
            "first = -9223372036854775808",
        ] {
            try store.write { db in try db.execute("UPDATE search_page_runs SET \(damage)") }
            let docids = try pageRows(store).map(\.rowid)
            _ = try store.read { try PageRuns.rows(docids, db: $0) }
            _ = try store.library.search("page")
        }
    }
}
