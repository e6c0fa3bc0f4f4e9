import Foundation
import XCTest

@testable import CipherdexStore

/// Text bound to and read from SQLite keeps every byte: a NUL inside a string is stored and comes
/// back (bound with a length of -1 and read with `String(cString:)`, "a\0b" was stored as "a").
final class StatementTextTests: XCTestCase {
    func testTextWithNULsComesBackWhole() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: nil))
        defer { store.close() }
        let values = ["a\u{0}b\nc", "\u{0}", "\u{0}\u{0}x\u{0}", "", "é\u{0}日本"]
        try store.write { db in
            try db.execute("CREATE TABLE t (a TEXT)")
            for value in values {
                try db.execute("INSERT INTO t (a) VALUES (?)", [.text(value)])
            }
            for (offset, value) in values.enumerated() {
                let stored = try db.scalar("SELECT a FROM t WHERE rowid = ?", [.integer(Int64(offset + 1))])
                XCTAssertEqual(stored, .text(value), value.debugDescription)
                XCTAssertEqual(
                    try db.scalar(
                        "SELECT length(CAST(a AS BLOB)) FROM t WHERE rowid = ?", [.integer(Int64(offset + 1))]),
                    .integer(Int64(value.utf8.count)), "every byte stored: \(value.debugDescription)")
            }
            // Compared by every byte too: "a\0b" is not "a".
            XCTAssertEqual(try db.scalar("SELECT count(*) FROM t WHERE a = ?", [.text("a")]), .integer(0))
            XCTAssertEqual(try db.scalar("SELECT typeof(a) FROM t WHERE rowid = 4"), .text("text"), "empty is not NULL")
        }
    }

    /// An attachment's content type and metadata with a NUL come back as given (the token
    /// `addAttachment` returned said "a\0b\nc" while the stored one said "a").
    func testAttachmentContentTypeAndMetadataKeepTheirNULs() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(7)))
        defer { store.close() }
        let token = try store.addAttachment(
            Data("x".utf8), contentType: "a\u{0}b\nc", metadata: ["k\u{0}1": "v\u{0}2"])
        XCTAssertEqual(token.contentType, "a\u{0}b\nc")
        let stored = try XCTUnwrap(try store.attachmentToken(token.id))
        XCTAssertEqual(stored.contentType, "a\u{0}b\nc")
        XCTAssertEqual(stored.metadata, ["k\u{0}1": "v\u{0}2"])
        XCTAssertEqual(stored, token)
    }
}
