import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Helpers for the tests of the migrations that re-cut the pages a tokenizer revision cuts
/// differently (`TokenizerRecut`).
enum TokenizerRecutTestSupport {
    /// Gives the page of `uid` the terms of `cut` (as an older revision cut its text), keeping
    /// `text` as its stored text.
    static func cut(_ db: Connection, uid: String, text: String, as cut: String) throws {
        let docid = try XCTUnwrap(
            db.scalar("SELECT rowid FROM search_pages WHERE uid = ?", [.text(uid)])?.integerValue)
        try db.execute("DELETE FROM search_text WHERE docid = ?", [.integer(docid)])
        try db.execute("INSERT INTO search_text (docid, body) VALUES (?, ?)", [.integer(docid), .text(cut)])
        try db.execute(
            "UPDATE search_text_content SET c0body = \(PageTextCompression.compressName)(?) WHERE docid = ?",
            [.text(text), .integer(docid)])
    }

    /// FTS4's integrity check (every row's stored text cut again matches the index), the store's
    /// `verify`, and FTS4's token total equal to the sum of the pages' lengths (BM25's average).
    static func assertIndexWhole(_ store: Store, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertNoThrow(
            try store.write { try $0.execute("INSERT INTO search_text (search_text) VALUES ('integrity-check')") },
            file: file, line: line)
        XCTAssertEqual(try store.verify().problems, [], file: file, line: line)
        let (total, lengths) = try store.read { db in
            (
                SearchLibraryTestSupport.varints(
                    try db.scalar("SELECT value FROM search_text_stat WHERE id = 0")?.blobValue ?? [])[1],
                try db.rows("SELECT size FROM search_text_docsize").map {
                    SearchLibraryTestSupport.varints($0[0].blobValue ?? [])[0]
                }
                .reduce(0, +)
            )
        }
        XCTAssertEqual(total, lengths, file: file, line: line)
    }

    /// The index's terms.
    static func terms(_ store: Store) throws -> [String] {
        try store.read { db in
            try db.rows("SELECT term FROM search_text_terms WHERE col = '*' ORDER BY term").compactMap {
                $0.first?.textValue
            }
        }
    }
}
