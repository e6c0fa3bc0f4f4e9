import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Issue 12, search migration 1004: `search_page_lengths` holds what FTS4's `search_text_docsize`
/// holds, through every write FTS4 makes (inserts, updates, deletes, a tokenizer rebuild), and
/// `DocumentLengths` reads the same lengths from it as from `search_text_docsize`.
final class PageLengthsTests: XCTestCase {
    private var store: Store!
    private var path: String!
    private var words = SeededWords(seed: 99)

    override func setUpWithError() throws {
        (store, path) = try SearchLibraryTestSupport.store()
    }

    override func tearDown() {
        store?.close()
    }

    /// Each page's length as FTS4's `_docsize` gives it, and as the chunks give it.
    private func lengths(_ store: Store) throws -> (docsize: [Int64: UInt32], chunks: [Int64: UInt32]) {
        try store.read { db in
            var docsize: [Int64: UInt32] = [:]
            try db.forEachRowView("SELECT docid, size FROM search_text_docsize") { row in
                docsize[row.integer(0)] = row.withBytes(1) { raw in
                    var reader = VarintReader(raw)
                    return UInt32(reader.next() ?? 0)
                }
            }
            var chunks: [Int64: UInt32] = [:]
            try db.forEachRowView("SELECT chunk, lengths FROM search_page_lengths") { row in
                let chunk = row.integer(0)
                row.withBytes(1) { raw in
                    XCTAssertEqual(raw.count, PageLengths.chunkBytes)
                    for slot in 0..<PageLengths.chunkPages {
                        let value = raw.loadUnaligned(fromByteOffset: slot * 4, as: UInt32.self)
                        if value != 0 { chunks[chunk << 8 | Int64(slot)] = value }
                    }
                }
            }
            return (docsize.filter { $0.value != 0 }, chunks)
        }
    }

    private func assertInStep(
        _ label: String, _ store: Store? = nil, file: StaticString = #filePath, line: UInt = #line
    )
        throws
    {
        let (docsize, chunks) = try lengths(store ?? self.store)
        XCTAssertFalse(docsize.isEmpty, label, file: file, line: line)
        XCTAssertEqual(chunks, docsize, label, file: file, line: line)
        // And what DocumentLengths reads for every row, either way.
        let docids = docsize.keys.sorted()
        let (viaChunks, viaDocsize) = try (store ?? self.store).read { db in
            var fromChunks = [UInt32](repeating: 0, count: docids.count)
            try DocumentLengths.fill(&fromChunks, docids: docids, stride: 1, offset: 0, columns: 1, db: db)
            var fromDocsize = [UInt32](repeating: 0, count: docids.count)
            // Two columns' layout skips the chunks: the `_docsize` path.
            var wide = [UInt32](repeating: 0, count: docids.count * 2)
            try DocumentLengths.fill(&wide, docids: docids, stride: 2, offset: 0, columns: 2, db: db)
            for index in docids.indices { fromDocsize[index] = wide[index * 2] }
            return (fromChunks, fromDocsize)
        }
        XCTAssertEqual(viaChunks, viaDocsize, label, file: file, line: line)
        XCTAssertEqual(viaChunks, docids.map { docsize[$0] ?? 0 }, label, file: file, line: line)
        // By slot (`slotLengths`): ranges starting and ending inside chunks, past the last row,
        // and before the first; a docid without a row is 0.
        guard let first = docids.first, let last = docids.last else { return }
        for (low, high) in [(first, last), (first + 3, last - 1), (first - 300, first + 2), (last - 2, last + 600)]
        where low <= high {
            let slots = try (store ?? self.store).read { db in
                try DocumentLengths.slotLengths(low: low, span: Int(high - low + 1), db: db)
            }
            XCTAssertEqual(
                slots, (low...high).map { docsize[$0] ?? 0 }, "\(label): \(low)...\(high)", file: file, line: line)
        }
        // The writer's connection is not a reader's: it reads lengths by row.
        let onWriter = try (store ?? self.store).write { db in
            try DocumentLengths.slotLengths(low: first, span: 1, db: db)
        }
        XCTAssertNil(onWriter, label, file: file, line: line)
    }

    private func write(_ body: (Connection) throws -> Void) throws {
        try store.write { db in try db.transaction { try body(db) } }
    }

    private func text(_ count: Int) -> String { (0..<count).map { _ in words.word() }.joined(separator: " ") }

    func testTheChunksFollowEveryWriteOfFTS4() throws {
        try write { db in
            for docid in 1...700 {
                try db.execute(
                    "INSERT INTO search_text (docid, body) VALUES (?, ?)",
                    [.integer(Int64(docid)), .text(text(docid % 50))])
            }
        }
        try assertInStep("inserted")
        try write { db in
            for docid in Swift.stride(from: 2, to: 700, by: 5) {
                try db.execute(
                    "UPDATE search_text SET body = ? WHERE docid = ?", [.text(text(7)), .integer(Int64(docid))])
            }
            try db.execute("DELETE FROM search_text WHERE docid % 3 = 0")
            // A whole chunk emptied: its row goes.
            try db.execute("DELETE FROM search_text WHERE docid BETWEEN 256 AND 511")
        }
        try assertInStep("updated and deleted")
        let emptied = try store.read { try $0.scalar("SELECT count(*) FROM search_page_lengths WHERE chunk = 1") }
        XCTAssertEqual(emptied?.integerValue, 0)

        // Through the library, and a tokenizer change (the table is rebuilt and renamed).
        try store.library.add(data: Data("a patient note about the dose".utf8), uid: "note.txt", fileExtension: "txt")
        store.library.waitUntilIdle()
        try assertInStep("library add")
        try store.library.setTokenizer(.englishStemming)
        try assertInStep("tokenizer changed")
        try store.library.remove(uid: "note.txt")
        store.library.waitUntilIdle()
        try assertInStep("library remove")
    }

    func testAStoreWithoutTheChunksGetsThemAtOpen() throws {
        try write { db in
            for docid in 1...600 {
                try db.execute(
                    "INSERT INTO search_text (docid, body) VALUES (?, ?)",
                    [.integer(Int64(docid * 3)), .text(text(20))])
            }
        }
        try store.write { db in
            try PageLengths.dropTriggers(db)
            try db.execute("DROP TABLE search_page_lengths")
            try db.execute("DELETE FROM cipherdex_schema WHERE version = 1004")
        }
        // Without the table, lengths come from `_docsize`.
        let docids = try store.read { db in
            try db.rows("SELECT docid FROM search_text_docsize ORDER BY docid").map { $0[0].integerValue ?? 0 }
        }
        let before = try store.read { db in
            var values = [UInt32](repeating: 0, count: docids.count)
            try DocumentLengths.fill(&values, docids: docids, stride: 1, offset: 0, columns: 1, db: db)
            return values
        }
        XCTAssertTrue(before.allSatisfy { $0 > 0 })
        store.close()
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        XCTAssertEqual(try store.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
        try assertInStep("migrated")
        try write { db in try db.execute("DELETE FROM search_text WHERE docid < 900") }
        try assertInStep("deleted after the migration")
    }

    /// A write to `search_text` outside `Connection.transaction` (so without the flush before
    /// `COMMIT`) is refused, and leaves nothing; a savepoint rolled back leaves the chunks true.
    func testAWriteThatWouldLeaveTheChunksBehindIsRefused() throws {
        try write { db in
            try db.execute("INSERT INTO search_text (docid, body) VALUES (1, 'one two three')")
        }
        XCTAssertThrowsError(
            try store.write { db in try db.execute("INSERT INTO search_text (docid, body) VALUES (2, 'four five')") }
        ) { XCTAssertEqual(($0 as? DatabaseError)?.code, 19, "the commit hook refuses the commit") }
        XCTAssertEqual(try store.read { try $0.scalar("SELECT count(*) FROM search_text")?.integerValue }, 1)
        try assertInStep("after the refused write")
        try write { db in
            try db.execute("SAVEPOINT inner")
            try db.execute("INSERT INTO search_text (docid, body) VALUES (3, 'six seven eight nine')")
            try db.execute("DELETE FROM search_text WHERE docid = 1")
            try db.execute("ROLLBACK TO inner")
            try db.execute("RELEASE inner")
            try db.execute("INSERT INTO search_text (docid, body) VALUES (4, 'ten')")
        }
        try assertInStep("after a savepoint rolled back")
        let (docsize, _) = try lengths(store)
        XCTAssertEqual(docsize, [1: 3, 4: 1])
    }
}
