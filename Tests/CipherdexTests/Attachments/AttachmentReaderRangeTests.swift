import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `AttachmentReader.read(range:)` and `byteRange(from:through:)` with bounds up to
/// `UInt64.max`: typed errors or HTTP clamping, never an arithmetic trap.
final class AttachmentReaderRangeTests: XCTestCase {
    private var stores: [Store] = []

    override func tearDown() {
        stores.forEach { $0.close() }
    }

    private let content = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 9) })

    /// A reader over `content` in an encrypted and in an unencrypted store.
    private func readers(for data: Data) throws -> [AttachmentReader] {
        try [TestSupport.rawKey(1), nil].map { key in
            let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: key))
            stores.append(store)
            return try store.attachment(try store.addAttachment(data).id)
        }
    }

    private func assertOutOfBounds<T>(_ body: @autoclosure () throws -> T, line: UInt = #line) {
        XCTAssertThrowsError(try body(), line: line) { error in
            guard case AttachmentError.rangeOutOfBounds = error else { return XCTFail("\(error)", line: line) }
        }
    }

    func testReadWithHugeBoundsIsRangeOutOfBounds() throws {
        for reader in try readers(for: content) {
            let max = UInt64.max
            for range in [0..<max, (max - 1)..<max, max..<max, 69_999..<max, 70_000..<70_001, (1 << 63)..<max] {
                assertOutOfBounds(try reader.read(range: range))
            }
            XCTAssertEqual(try reader.read(range: 69_990..<70_000), content[69_990..<70_000])
        }
    }

    func testByteRangeClampsTheEndAsHTTPDoes() throws {
        for reader in try readers(for: content) {
            let max = UInt64.max
            XCTAssertEqual(try reader.byteRange(from: 0, through: max), 0..<70_000)
            XCTAssertEqual(try reader.byteRange(from: 0, through: max - 1), 0..<70_000)
            XCTAssertEqual(try reader.byteRange(from: 69_999, through: max), 69_999..<70_000)
            XCTAssertEqual(try reader.byteRange(from: 5, through: nil), 5..<70_000)
            XCTAssertEqual(try reader.byteRange(from: 5, through: 9), 5..<10)
            XCTAssertEqual(try reader.byteRange(from: 0, through: 69_999), 0..<70_000)
            XCTAssertEqual(try reader.byteRange(from: 0, through: 70_000), 0..<70_000)
            for (start, end) in [(max, nil), (max, max), (max - 1, max), (70_000, nil), (70_000, max), (9, 5)]
                as [(UInt64, UInt64?)]
            {
                assertOutOfBounds(try reader.byteRange(from: start, through: end))
            }
            let selected = try reader.byteRange(from: 69_000, through: max)
            XCTAssertEqual(try reader.read(range: selected), content[69_000...])
        }
    }

    func testByteRangeOfEmptyContent() throws {
        for reader in try readers(for: Data()) {
            XCTAssertEqual(try reader.byteRange(from: 0, through: nil), 0..<0)
            XCTAssertEqual(try reader.byteRange(from: 0, through: .max), 0..<0)
            assertOutOfBounds(try reader.byteRange(from: 1, through: nil))
            assertOutOfBounds(try reader.byteRange(from: .max, through: .max))
            assertOutOfBounds(try reader.read(range: 0..<UInt64.max))
            XCTAssertEqual(try reader.read(range: 0..<0), Data())
        }
    }
}
