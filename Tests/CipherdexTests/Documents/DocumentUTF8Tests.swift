import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Raw JSON whose strings or member names are not valid UTF-8 is refused, never repaired: two
/// different byte strings must never become one value.
final class DocumentUTF8Tests: XCTestCase {
    private static let invalidSequences: [[UInt8]] = [
        [0xFF], [0xFE, 0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80],
    ]

    func testInvalidUTF8InStringsAndMemberNamesIsRejected() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        for sequence in Self.invalidSequences {
            let asValue = Array(#"{"k":"a"#.utf8) + sequence + Array(#""}"#.utf8)
            let asName = Array(#"{"a"#.utf8) + sequence + Array(#"":1}"#.utf8)
            let escaped = Array(#"{"k":"\u0041"#.utf8) + sequence + Array(#""}"#.utf8)
            for bytes in [asValue, asName, escaped] {
                XCTAssertThrowsError(try items.insert(id: "x", json: Data(bytes)), "\(sequence)") { error in
                    guard case .invalidJSON(let reason) = error as? DocumentError else { return XCTFail("\(error)") }
                    XCTAssertTrue(reason.contains("invalid UTF-8"), reason)
                }
            }
        }
        XCTAssertEqual(try items.count(), 0)
        try items.insert(id: "x", json: Data(#"{"caf\#u{E9}":"\#u{1F600}"}"#.utf8))
        XCTAssertEqual(try items.get(id: "x")?.value, ["caf\u{E9}": "\u{1F600}"])
    }
}
