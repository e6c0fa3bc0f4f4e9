import Foundation
import XCTest

@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// A store file never lands on descriptors 0–2: with standard input closed, a store's lock file
/// opened by the library goes above 2, and descriptor 0 gets `/dev/null`.
final class StandardDescriptorsTests: XCTestCase {
    func testAStoreFileOpenedWithStandardInputClosedGoesAboveTwo() throws {
        let savedInput = dup(0)
        XCTAssertGreaterThan(savedInput, 2)
        defer {
            dup2(savedInput, 0)
            close(savedInput)
        }
        close(0)
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: nil))
        defer { store.close() }
        var zero = stat()
        XCTAssertEqual(fstat(0, &zero), 0)
        var null = stat()
        XCTAssertEqual(stat("/dev/null", &null), 0)
        XCTAssertEqual(zero.st_rdev, null.st_rdev, "descriptor 0 holds /dev/null, not a store file")
        XCTAssertEqual(fcntl(0, F_GETFL) & O_ACCMODE, O_RDONLY)
        XCTAssertEqual(StandardDescriptors.movedAbove(5), 5)
    }
}
