import Foundation
import Synchronization
import XCTest

/// Fresh directories under the system temporary folder that are removed when the test that made
/// them has finished (or, for one made outside a test, when the test bundle has finished).
///
/// Set `CIPHERDEX_KEEP_TEST_FILES=1` to keep them for a look after a failure.
public enum TemporaryDirectory {
    /// Creates `<temporary folder>/<prefix><UUID>` and returns its path (no trailing slash).
    public static func make(prefix: String) -> String {
        let path = NSTemporaryDirectory() + prefix + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        TemporaryDirectoryCleaner.shared.register(path)
        return path
    }
}

/// Removes registered directories at the end of each test and of the bundle.
private final class TemporaryDirectoryCleaner: NSObject, XCTestObservation, Sendable {
    /// The paths awaiting removal, and whether a test is running (so a path made during a test
    /// goes with that test).
    private struct State {
        var testIsRunning = false
        var perTest: [String] = []
        var perBundle: [String] = []
    }

    static let shared: TemporaryDirectoryCleaner = {
        let cleaner = TemporaryDirectoryCleaner()
        XCTestObservationCenter.shared.addTestObserver(cleaner)
        // A folder made outside any test (a test case's stored property, made when XCTest builds
        // the cases) goes at exit, in case the bundle's end is not observed.
        atexit { TemporaryDirectoryCleaner.shared.removeAll() }
        return cleaner
    }()

    private let state = Mutex(State())
    private let keep = ProcessInfo.processInfo.environment["CIPHERDEX_KEEP_TEST_FILES"] == "1"

    func register(_ path: String) {
        state.withLock { state in
            // The first registration adds the observer from inside a running test, whose start it
            // missed: such a path waits for the bundle's end.
            if state.testIsRunning { state.perTest.append(path) } else { state.perBundle.append(path) }
        }
    }

    func testCaseWillStart(_ testCase: XCTestCase) {
        state.withLock { $0.testIsRunning = true }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        let paths = state.withLock { state in
            state.testIsRunning = false
            defer { state.perTest = [] }
            return state.perTest
        }
        remove(paths)
    }

    func testBundleDidFinish(_ testBundle: Bundle) {
        removeAll()
    }

    /// Removes every registered folder.
    func removeAll() {
        let paths = state.withLock { state in
            defer {
                state.perTest = []
                state.perBundle = []
            }
            return state.perTest + state.perBundle
        }
        remove(paths)
    }

    private func remove(_ paths: [String]) {
        guard !keep else { return }
        for path in paths {
            // Tests may leave read-only folders behind (permission tests): make them writable.
            if let enumerator = FileManager.default.enumerator(atPath: path) {
                while let relative = enumerator.nextObject() as? String {
                    chmod(path + "/" + relative, 0o755)
                }
            }
            chmod(path, 0o755)
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
