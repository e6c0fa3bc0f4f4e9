import XCTest

@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

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

    /// `quietCrashReports()` puts its own handler, on its own stack and resetting itself, on every
    /// crash signal in place of the Swift runtime's backtracer (whose register dump showed key
    /// bytes: environment audit 28). The runtime's handlers are put back here for the other tests.
    func testQuietCrashReportsReplacesTheBacktracersHandlers() throws {
        #if os(Linux)
            let signals = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]
            var saved: [sigaction] = []
            for signal in signals {
                var action = sigaction()
                XCTAssertEqual(sigaction(signal, nil, &action), 0)
                saved.append(action)
            }
            defer {
                for (signal, action) in zip(signals, saved) {
                    var action = action
                    sigaction(signal, &action, nil)
                }
            }
            try CoreDumps.quietCrashReports()
            for (signal, before) in zip(signals, saved) {
                var action = sigaction()
                XCTAssertEqual(sigaction(signal, nil, &action), 0)
                let wanted = Int32(SA_ONSTACK) | Int32(bitPattern: UInt32(SA_RESETHAND))
                XCTAssertEqual(action.sa_flags & wanted, wanted)
                XCTAssertNotEqual(
                    unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self),
                    unsafeBitCast(before.__sigaction_handler.sa_handler, to: Int.self), "signal \(signal)")
            }
        #endif
    }
}
