import Dispatch
import Synchronization
import XCTest

@testable import CipherdexExtraction

#if canImport(Glibc)
    import Glibc
#endif

final class JoinableThreadTests: XCTestCase {
    /// The closure runs in another thread, and `join` returns once that thread has ended: its
    /// kernel task is gone from this process.
    func testJoinWaitsForTheThreadToEnd() throws {
        let seen = Mutex<String?>(nil)
        let caller = try Self.taskPath()
        let thread = try XCTUnwrap(
            JoinableThread(stackSize: 8 << 20) {
                usleep(50_000)
                let path = try? Self.taskPath()
                seen.withLock { $0 = path }
            })
        thread.join()
        let task = try XCTUnwrap(seen.withLock { $0 })
        XCTAssertNotEqual(task, caller)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/proc/" + task), "the joined thread's task is gone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: "/proc/" + caller))
        thread.join()  // a second join does nothing
    }

    /// This thread's task, `PID/task/TID` (below /proc).
    private static func taskPath() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
    }

    /// A detached thread runs on after `detach` and ends by itself; so does one whose owner is
    /// released without either call.
    func testDetachedAndReleasedThreadsRunToTheirEnd() throws {
        let finished = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let detached = try XCTUnwrap(
            JoinableThread(stackSize: 1 << 20) {
                release.wait()
                finished.signal()
            })
        detached.detach()
        detached.detach()  // a second detach does nothing
        do {
            _ = try XCTUnwrap(
                JoinableThread(stackSize: 1 << 20) {
                    release.wait()
                    finished.signal()
                })
        }
        release.signal()
        release.signal()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
    }

    /// A stack size the system refuses makes no thread: nil, and the closure never runs.
    func testARefusedStackSizeMakesNoThread() {
        let ran = Atomic<Bool>(false)
        XCTAssertNil(JoinableThread(stackSize: 1) { ran.store(true, ordering: .relaxed) })
        usleep(10_000)
        XCTAssertFalse(ran.load(ordering: .relaxed))
    }
}
