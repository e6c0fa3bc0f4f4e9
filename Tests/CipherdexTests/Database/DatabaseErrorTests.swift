import Foundation
import XCTest

@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// A database error's description names the database file and, for a failed open or
/// input/output, the system's reason: SQLite's own `unable to open database file` says neither.
final class DatabaseErrorTests: XCTestCase {
    func testAFailedOpenNamesTheFileAndTheSystemsReason() {
        let error = DatabaseError.sqlite(
            code: Connection.cantOpenCode, extendedCode: 14, message: "unable to open database file",
            systemErrno: EMFILE, path: "/s/store.db")
        XCTAssertEqual(
            error.errorDescription,
            "SQLite error 14 (extended 14) on /s/store.db: unable to open database file "
                + "(\(String(cString: strerror(EMFILE))), errno \(EMFILE))")
    }

    /// SQLite keeps the errno of failed opens and input/output only: beside any other code it
    /// may be an earlier call's, and is not shown; nor is a path that is not known.
    func testAnErrnoBesideAnotherCodeOrAnUnknownPathIsNotShown() {
        let corrupt = DatabaseError.sqlite(
            code: Connection.corruptCode, extendedCode: 11, message: "database disk image is malformed",
            systemErrno: EMFILE, path: "/s/store.db")
        XCTAssertEqual(
            corrupt.errorDescription, "SQLite error 11 (extended 11) on /s/store.db: database disk image is malformed")
        let anonymous = DatabaseError.sqlite(code: Connection.errorCode, extendedCode: 1, message: "no such table: x")
        XCTAssertEqual(anonymous.errorDescription, "SQLite error 1 (extended 1): no such table: x")
    }
}
