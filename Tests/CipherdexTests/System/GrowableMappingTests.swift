import XCTest

@testable import CipherdexStore

/// `GrowableMapping`: what was written survives every growth, sizes are whole pages, and a growth
/// the system refuses leaves the mapping as it was.
final class GrowableMappingTests: XCTestCase {
    func testContentsSurviveEveryGrowth() throws {
        let mapping = try XCTUnwrap(GrowableMapping(capacity: 1))
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        XCTAssertEqual(mapping.capacity, page, "rounded up to a page")
        var written = 0
        // 12 growths, to 48 MiB: a different byte pattern in each piece.
        for step in 0..<12 {
            let wanted = (4 << 10) << step
            XCTAssertTrue(mapping.grow(toAtLeast: wanted))
            XCTAssertGreaterThanOrEqual(mapping.capacity, wanted)
            XCTAssertEqual(mapping.capacity % page, 0)
            (mapping.baseAddress + written).initializeMemory(
                as: UInt8.self, repeating: UInt8(step + 1), count: mapping.capacity - written)
            written = mapping.capacity
        }
        var start = 0
        for step in 0..<12 {
            let end = max((4 << 10) << step, page)
            guard end > start else { continue }
            let bytes = UnsafeRawBufferPointer(start: mapping.baseAddress + start, count: end - start)
            XCTAssertTrue(bytes.allSatisfy { $0 == UInt8(step + 1) }, "piece \(step)")
            start = end
        }
    }

    func testASmallerSizeOrARefusedGrowthChangesNothing() throws {
        let mapping = try XCTUnwrap(GrowableMapping(capacity: 10_000))
        mapping.baseAddress.initializeMemory(as: UInt8.self, repeating: 9, count: mapping.capacity)
        let (address, capacity) = (mapping.baseAddress, mapping.capacity)
        XCTAssertTrue(mapping.grow(toAtLeast: 5))
        XCTAssertEqual(mapping.capacity, capacity)
        // More address space than the machine has: refused, and the old mapping still holds its bytes.
        XCTAssertFalse(mapping.grow(toAtLeast: Int.max / 4))
        XCTAssertEqual(mapping.baseAddress, address)
        XCTAssertEqual(mapping.capacity, capacity)
        XCTAssertTrue(UnsafeRawBufferPointer(start: address, count: capacity).allSatisfy { $0 == 9 })
        XCTAssertNil(GrowableMapping(capacity: Int.max / 4))
    }
}
