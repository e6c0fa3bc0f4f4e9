import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `Connection.scalar`: the first column of the first row, nil when there is no row (not a NULL
/// value, which a row can hold).
final class ConnectionScalarTests: XCTestCase {
    func testNoRowIsNilAndARowHoldingNullIsNull() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: nil))
        defer { store.close() }
        try store.write { db in
            try db.execute("CREATE TABLE t (a INTEGER)")
            try db.execute("INSERT INTO t (a) VALUES (NULL), (7)")
            XCTAssertNil(try db.scalar("SELECT a FROM t WHERE rowid = 99"), "no row")
            XCTAssertEqual(try db.scalar("SELECT a FROM t WHERE rowid = 1"), .null, "a row holding NULL")
            XCTAssertEqual(try db.scalar("SELECT a FROM t WHERE rowid = ?", [.integer(2)]), .integer(7))
        }
    }
}
