import Foundation
import XCTest

/// Runs test code that must not hang (a FIFO read, a call inside a transaction) so that a
/// regression fails the test instead of blocking the whole suite.
enum Watchdog {
    /// Runs `body` on another thread and returns its result; fails the test and returns nil when
    /// it has not finished after `seconds`, after calling `unblock` (a chance to release the
    /// stuck thread; otherwise it is abandoned).
    static func finishing<T>(
        within seconds: Double = 5, unblock: () -> Void = {}, file: StaticString = #filePath, line: UInt = #line,
        _ body: @escaping @Sendable () throws -> T
    ) -> Result<T, Error>? {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Thread {
            box.result = Result { try body() }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + seconds) == .success else {
            XCTFail("did not finish within \(seconds) s", file: file, line: line)
            unblock()
            return nil
        }
        return box.result
    }
}

/// A result handed from a worker thread (written before the semaphore signal, read after it).
final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}
