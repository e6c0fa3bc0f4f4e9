import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// A failing device (`EIO`) is `ioError` naming the path, whichever layer saw it — never
/// damage (`storeCorrupted`, `metadataCorrupt`) nor an untyped `system`/`database` error.
final class StoreErrorClassificationTests: XCTestCase {
    func testEIOFromASystemCallIsIOErrorNamingThePath() {
        let error = StoreError.classifying(SystemError(operation: "pread", path: "/s/store.db", errno: EIO))
        XCTAssertEqual(error.name, "ioError")
        XCTAssertTrue(error.errorDescription!.contains("/s/store.db"), error.errorDescription!)
    }

    func testSQLiteIOErrorWithEIOIsIOErrorAndOtherIOErrorsAreNot() {
        let eio = DatabaseError.sqlite(
            code: Connection.ioErrorCode, extendedCode: 266, message: "disk I/O error", systemErrno: EIO,
            path: "/s/store.db")
        XCTAssertEqual(StoreError.classifying(eio).name, "ioError")
        XCTAssertTrue(StoreError.classifying(eio).errorDescription!.contains("/s/store.db"))
        let corrupt = DatabaseError.sqlite(
            code: 11, extendedCode: 11, message: "database disk image is malformed", systemErrno: EIO,
            path: "/s/store.db")
        XCTAssertEqual(
            StoreError.classifying(corrupt).name, "storeCorrupted", "a stale errno does not make damage an I/O error")
    }
}
