import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `SecureBytes` allocation and release, in particular when its initializer throws.
final class SecureBytesTests: XCTestCase {
    private struct Refused: Error {}

    /// A throwing `initialize` used to free the buffer in the catch and again in `deinit`
    /// (a segmentation fault, sometimes only after a few rounds); it must free it exactly once.
    func testThrowingInitializerFreesOnce() {
        for round in 0..<2_000 {
            XCTAssertThrowsError(
                try SecureBytes(count: 1 + round % 64) { buffer in
                    buffer[0] = 0xAA
                    throw Refused()
                }
            ) { error in
                XCTAssertTrue(error is Refused)
            }
        }
        // The allocator still works and hands out zeroed memory.
        let after = SecureBytes(count: 32) { _ in }
        after.withUnsafeBytes { XCTAssertEqual(Array($0), [UInt8](repeating: 0, count: 32)) }
    }

    /// An initializer that throws for an empty buffer (the one-byte allocation) is freed once too.
    func testThrowingInitializerOfEmptyBuffer() {
        for _ in 0..<200 {
            XCTAssertThrowsError(try SecureBytes(count: 0) { _ in throw Refused() })
        }
    }

    func testCopyingAndComparing() {
        let first = SecureBytes(copying: [1, 2, 3] as [UInt8])
        let second = SecureBytes(copying: [1, 2, 3] as [UInt8])
        XCTAssertEqual(first.count, 3)
        XCTAssertTrue(first.constantTimeEquals(second))
        XCTAssertFalse(first.constantTimeEquals(SecureBytes(copying: [1, 2, 4] as [UInt8])))
    }
}
