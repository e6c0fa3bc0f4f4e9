import XCTest

@testable import CipherdexStore

/// `CoreDumps.disable()` makes the process not dumpable (restored here for the other tests).
final class CoreDumpsTests: XCTestCase {
    func testDisableMakesTheProcessNotDumpable() throws {
        #if os(Linux)
            XCTAssertTrue(CoreDumps.areEnabled)
            try CoreDumps.disable()
            defer { CoreDumps.enableForTesting() }
            XCTAssertFalse(CoreDumps.areEnabled)
            try CoreDumps.disable()  // again: no error
            XCTAssertFalse(CoreDumps.areEnabled)
        #endif
    }
}
