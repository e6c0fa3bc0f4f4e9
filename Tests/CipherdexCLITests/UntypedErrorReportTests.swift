import Cipherdex
import XCTest

@testable import CipherdexCLI

#if canImport(Glibc)
    import Glibc
#endif

/// An SQLite error that reaches the CLI's report untyped (as `index` met one reading a page)
/// gets the store's typed case: a failing disk is `ioError`, exit 19, never the bare code
/// `error` whose line doubled the word ("cipherdex: error: error: SQLite error 10 …", exit 1).
final class UntypedErrorReportTests: XCTestCase {
    func testAnUntypedSQLiteInputOutputErrorIsIOError() {
        let failure = DatabaseError.sqlite(
            code: 10, extendedCode: 266, message: "disk I/O error", systemErrno: EIO, path: "/s/store.db")
        let typed = CipherdexCommandLine.typed(failure)
        let (code, status) = ExitStatus.describe(typed)
        XCTAssertEqual(code, "ioError")
        XCTAssertEqual(status, 19)
        XCTAssertTrue((typed as? StoreError)?.errorDescription?.contains("/s/store.db") == true, "\(typed)")
        let other = DatabaseError.sqlite(code: 1, extendedCode: 1, message: "no such table: x", path: "/s/store.db")
        XCTAssertEqual(ExitStatus.describe(CipherdexCommandLine.typed(other)).code, "database")
    }
}
