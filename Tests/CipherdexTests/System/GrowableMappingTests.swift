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

    /// A mapping's pages moved into a reserved one at a page offset (`adopt`): the other's bytes
    /// land there whole, what the first held before that offset stays, the other is left empty,
    /// what is written after them is kept too, and pages that do not fit are refused with both
    /// mappings unchanged.
    func testAnAdoptedMappingsPagesLandAtTheOffset() throws {
        let page = GrowableMapping.pageSize
        let mapping = try XCTUnwrap(GrowableMapping(capacity: 64 << 20, reserving: true))
        XCTAssertEqual(mapping.capacity, 64 << 20)
        mapping.baseAddress.initializeMemory(as: UInt8.self, repeating: 1, count: 3 * page + 100)
        func filled(_ size: Int) throws -> GrowableMapping {
            let other = try XCTUnwrap(GrowableMapping(capacity: 1))
            XCTAssertTrue(other.grow(toAtLeast: size))
            for index in 0..<other.capacity {
                other.baseAddress.storeBytes(of: UInt8(index % 251), toByteOffset: index, as: UInt8.self)
            }
            return other
        }
        func holdsPattern(_ start: UnsafeMutableRawPointer, _ count: Int) -> Bool {
            UnsafeRawBufferPointer(start: start, count: count).enumerated().allSatisfy {
                $0.element == UInt8($0.offset % 251)
            }
        }
        let other = try filled(5 << 20)
        let moved = other.capacity
        let offset = GrowableMapping.pages(3 * page + 100)
        XCTAssertTrue(mapping.adopt(other, at: offset))
        XCTAssertEqual(other.capacity, 0, "the other is left empty")
        XCTAssertEqual(mapping.capacity, 64 << 20, "not grown")
        XCTAssertTrue(UnsafeRawBufferPointer(start: mapping.baseAddress, count: 3 * page + 100).allSatisfy { $0 == 1 })
        XCTAssertTrue(holdsPattern(mapping.baseAddress + offset, moved))
        (mapping.baseAddress + offset + moved).initializeMemory(as: UInt8.self, repeating: 7, count: 8 * page)
        XCTAssertTrue(holdsPattern(mapping.baseAddress + offset, moved))
        XCTAssertTrue(
            UnsafeRawBufferPointer(start: mapping.baseAddress + offset + moved, count: 8 * page).allSatisfy { $0 == 7 })
        // A second adoption after the first, then one that does not fit.
        let second = try filled(page)
        XCTAssertTrue(mapping.adopt(second, at: offset + moved + 8 * page))
        XCTAssertTrue(holdsPattern(mapping.baseAddress + offset + moved + 8 * page, page))
        let tooLarge = try filled(2 * page)
        XCTAssertFalse(mapping.adopt(tooLarge, at: mapping.capacity - page))
        XCTAssertEqual(tooLarge.capacity, 2 * page)
        XCTAssertTrue(holdsPattern(tooLarge.baseAddress, 2 * page), "refused: the other unchanged")
        XCTAssertTrue(mapping.adopt(other, at: 0), "an empty mapping adopts as nothing")
    }
}
