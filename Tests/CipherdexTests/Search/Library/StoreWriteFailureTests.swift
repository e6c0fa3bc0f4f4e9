import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// The reason a failed index write gives reads once, plainly, whichever layer saw the full disk.
final class StoreWriteFailureTests: XCTestCase {
    func testATypedFullDiskNamesThePathOnce() {
        let reason = StoreWriteFailure.reason(for: StoreError.diskFull(path: "/s/staging/ab"))
        XCTAssertEqual(reason, "disk full (cannot write /s/staging/ab)")
    }

    func testAnUntypedFullDiskKeepsItsDescription() {
        let error = AttachmentError.io(id: "ab", operation: "pwrite", errno: ENOSPC)
        XCTAssertEqual(StoreWriteFailure.reason(for: error), "disk full (\(error.errorDescription!))")
        XCTAssertEqual(StoreWriteFailure.reason(for: StoreError.closed), "the store is closed")
    }
}
