import XCTest

@testable import CipherdexStore

/// `ProcessHeap`: glibc takes the settings `cipherdex search` asks for (a value it refuses, such
/// as a threshold over its 32 MiB limit, would leave the search faulting in fresh pages again).
final class ProcessHeapTests: XCTestCase {
    func testGlibcTakesTheSearchsMallocSettings() {
        XCTAssertLessThanOrEqual(ProcessHeap.mmapThreshold, 32 << 20)
        XCTAssertTrue(ProcessHeap.keepFreedMemory())
        // Large blocks are still served and given back whole.
        for size in [1 << 20, 8 << 20, 24 << 20] {
            let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            block.initializeMemory(as: UInt8.self, repeating: 7, count: size)
            XCTAssertEqual(block.load(fromByteOffset: size - 1, as: UInt8.self), 7)
            block.deallocate()
        }
    }
}
