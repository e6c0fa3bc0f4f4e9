import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Helpers shared by the document tests.
enum DocumentTestSupport {
    /// A new encrypted store (raw key, so no key derivation cost) at a fresh path.
    static func openStore(path: String = TestSupport.temporaryPath(), encrypted: Bool = true) throws -> Store {
        try Store.open(TestSupport.configuration(path, key: encrypted ? TestSupport.rawKey(1) : nil))
    }

    /// JSON text as data.
    static func json(_ text: String) -> Data { Data(text.utf8) }
}


/// A thread-safe list, for collecting observer callbacks.
final class LockedList<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var elements: [Element] = []

    func append(_ element: Element) { lock.withLock { elements.append(element) } }
    var values: [Element] { lock.withLock { elements } }

    /// Waits until at least `count` elements arrived (or `timeout` passed).
    func wait(for count: Int, timeout: TimeInterval = 5) -> [Element] {
        let deadline = Date().addingTimeInterval(timeout)
        while values.count < count, Date() < deadline { usleep(2_000) }
        return values
    }
}

/// Asserts that `body` throws exactly the `DocumentError` `expected`.
func XCTAssertDocumentError<T>(
    _ expected: DocumentError, _ body: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertThrowsExactly(expected, try body(), file: file, line: line)
}
