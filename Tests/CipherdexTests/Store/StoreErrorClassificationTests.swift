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

    /// A write past the file-size limit (`EFBIG`, SIGXFSZ ignored) is `fileTooLarge` naming the
    /// path, from a system call or from SQLite (which reports it as an I/O error with that errno).
    func testEFBIGFromASystemCallOrSQLiteIsFileTooLargeNamingThePath() {
        let system = StoreError.classifying(SystemError(operation: "write", path: "/s/staging/x", errno: EFBIG))
        XCTAssertEqual(system, .fileTooLarge(path: "/s/staging/x"))
        XCTAssertTrue(system.errorDescription!.contains("file-size limit"), system.errorDescription!)
        let database = DatabaseError.sqlite(
            code: Connection.ioErrorCode, extendedCode: 778, message: "disk I/O error", systemErrno: EFBIG,
            path: "/s/store.db")
        XCTAssertEqual(StoreError.classifying(database), .fileTooLarge(path: "/s/store.db"))
    }

    /// A mount point in the way (`EBUSY` removing or replacing it, `EXDEV` renaming across one)
    /// is `mountPoint` naming the path and what was being done, never an untyped `system`.
    func testEBUSYAndEXDEVAreMountPointNamingThePathAndTheOperation() {
        let busy = StoreError.classifying(SystemError(operation: "unlink", path: "/s/staging/x", errno: EBUSY))
        XCTAssertEqual(busy.name, "mountPoint")
        XCTAssertTrue(busy.errorDescription!.hasPrefix("cannot remove /s/staging/x: it is a mount point"), "\(busy)")
        let renamed = StoreError.classifying(SystemError(operation: "rename", path: "/s/metadata.json", errno: EBUSY))
        XCTAssertTrue(renamed.errorDescription!.hasPrefix("cannot move a file to /s/metadata.json: "), "\(renamed)")
        let crossing = StoreError.classifying(SystemError(operation: "rename", path: "/s/attachments/a", errno: EXDEV))
        XCTAssertEqual(crossing.name, "mountPoint")
        XCTAssertTrue(
            crossing.errorDescription!.hasPrefix("cannot move a file to /s/attachments/a: it and its source are on "),
            "\(crossing)")
        XCTAssertTrue(crossing.errorDescription!.contains("one file system"), "\(crossing)")
    }
}
