import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `JSONValue(encoding:)` (and so the `Codable` `insert` and `upsert`) builds the value straight
/// from the `Encodable`: every value `JSONEncoder` wrote exactly gives the same canonical bytes as
/// before, a `JSONValue` inside is inserted exactly, and nesting past the limit is refused.
final class DocumentEncoderTests: XCTestCase {
    /// The canonical bytes of `value` as the store wrote them before it had its own encoder:
    /// `JSONEncoder`'s text, parsed.
    private func oldBytes(_ value: some Encodable) throws -> [UInt8] {
        try JSONValue(parsing: JSONEncoder().encode(value)).canonicalBytes
    }

    private struct Numbers: Codable {
        var int64Min = Int64.min
        var uint64Max = UInt64.max
        var small: [Int8] = [.min, .max]
        var unsigned: [UInt16] = [0, .max]
        var int32: Int32 = -7
        var uint32: UInt32 = .max
        var uint8: UInt8 = 200
        var int16: Int16 = -300
        var uint: UInt = 12
        var wide: [Int128] = [.min, .max, -1, 0, Int128(Int64.min) - 1]
        var unsignedWide: [UInt128] = [.max, UInt128(UInt64.max) + 1, 0]
        var doubles: [Double] = [
            0.1, 1.0 / 3, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -1e-7, 1e21, 1e22, 0, -0.0, 123456789.125,
            100, 9_007_199_254_740_992, .leastNormalMagnitude, 1.7976931348623157e308, 2.2250738585072014e-308,
        ]
        var floats: [Float] = [
            0.1, 1.0 / 3, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 16_777_216, 1e-7, -0.0, 3,
        ]
        var decimals: [Decimal] = [
            Decimal(string: "3.14159265358979323846264338327950288")!,
            Decimal(string: "-0.000000000000000000000000000000012345")!,
            Decimal(string: "1e100")!, Decimal(string: "-1e-100")!, 0, Decimal(string: "12.50")!,
        ]
    }

    private struct Texts: Codable {
        var plain = "Ulrike Quandt-Varga"
        var escapes = "a\"b\\c/d\u{0}\u{1F}\n\r\t\u{7F}\u{2028}"
        var unicode = "é e\u{301} 😀 \u{FEFF}"
        var empty = ""
        var bools = [true, false]
        var optional: String? = nil
        var present: Int? = 4
        var nulls: [Int?] = [nil, 1, nil]
        var keys: [String: Int] = ["": 0, "a/b": 1, "é": 2, "\u{1}": 3]
        var intKeys: [Int: String] = [1: "a", -20: "b"]
        var nested: [[[String]]] = [[[]], [["x"]]]
        var set: Set<Int> = [3]
    }

    private enum Kind: Codable {
        case plain
        case pair(Int, name: String)
        case list(x: [Double])
    }

    private struct Nothing: Encodable {
        func encode(to encoder: Encoder) throws {}
    }

    /// Keyed containers asked for twice share one object; super encoders in objects and arrays.
    private struct Containers: Encodable {
        enum Keys: String, CodingKey { case a, b, nested, list, base }
        func encode(to encoder: Encoder) throws {
            var first = encoder.container(keyedBy: Keys.self)
            try first.encode(1, forKey: .a)
            var second = encoder.container(keyedBy: Keys.self)
            try second.encode("two", forKey: .b)
            try "up".encode(to: second.superEncoder())
            try [1.5].encode(to: second.superEncoder(forKey: .base))
            var list = second.nestedUnkeyedContainer(forKey: .list)
            try list.encode(Int8(1))
            try Nothing().encode(to: list.superEncoder())
            var inner = list.nestedContainer(keyedBy: Keys.self)
            try inner.encodeNil(forKey: .a)
            var innerList = list.nestedUnkeyedContainer()
            try innerList.encode(UInt64.max)
            var nested = second.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            try nested.encode(Float(0.1), forKey: .a)
            try nested.encode(Nothing(), forKey: .b)
        }
    }

    private struct Special: Codable {
        var date = Date(timeIntervalSinceReferenceDate: 0.1)
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSinceReferenceDate: -1e9)]
        var data = Data([0, 1, 2, 0xFF, 0xFE])
        var emptyData = Data()
        var url = URL(string: "https://example.com/a/b?c=d#e")!
        var relative = URL(string: "x/y", relativeTo: URL(string: "https://example.com/base/")!)!
        var file = URL(fileURLWithPath: "/tmp/a b")
        var decimal = Decimal(string: "-12.5")!
    }

    func testEveryValueJSONEncoderWroteExactlyHasTheSameCanonicalBytes() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        func check(_ value: some Encodable, _ label: String, file: StaticString = #filePath, line: UInt = #line) throws
        {
            let expected = try oldBytes(value)
            XCTAssertEqual(try JSONValue(encoding: value).canonicalBytes, expected, label, file: file, line: line)
            if case .object = try JSONValue(parsing: expected) {
                try items.upsert(value, id: label)
                XCTAssertEqual(try items.get(id: label)?.value.canonicalBytes, expected, label, file: file, line: line)
            }
        }
        try check(Numbers(), "numbers")
        try check(Texts(), "texts")
        try check([Kind.plain, .pair(-3, name: "n"), .list(x: [0.5, 1e300])], "kinds")
        try check(Containers(), "containers")
        try check(Special(), "special")
        try check(["wrapped": Nothing()], "nothing")
        try check(Date(timeIntervalSinceReferenceDate: 12.75), "date")
        try check(Data([1, 2, 3]), "data")
        try check(URL(string: "https://x.y")!, "url")
        try check(Decimal(string: "0.001")!, "decimal")
        try check(["a": [1, 2], "b": []], "dictionary")
        try check(["a": 1.5] as [String: Double], "doubles")
        XCTAssertEqual(try JSONValue(encoding: Special()).canonicalString.contains(#""data":"AAEC//4=""#), true)
    }

    func testAJSONValueInsideAnEncodableIsExactWhereJSONEncoderFailed() throws {
        struct Holder: Encodable {
            var v: JSONValue
            var list: [JSONValue]
        }
        for text in [
            "12345678901234567890123456789012345678901234567890", "1e-400", "-1e400", "0.99999999999999999999",
        ] {
            let number = JSONValue.number(try XCTUnwrap(JSONNumber(text)))
            let value = try JSONValue(encoding: Holder(v: number, list: [number, ["k": number]]))
            let canonical = number.canonicalString
            XCTAssertEqual(value.canonicalString, #"{"list":[\#(canonical),{"k":\#(canonical)}],"v":\#(canonical)}"#)
            XCTAssertEqual(value[path: "list.1.k"], number)
        }
    }

    func testNonFiniteNumbersAreEncodingFailedSayingSoWithTheirCodingPath() throws {
        struct Doubles: Encodable { var x: [Double] }
        struct Floats: Encodable { var y: [String: Float] }
        struct Decimals: Encodable { var z: Decimal }
        for value in [Double.infinity, -.infinity, .nan] {
            XCTAssertDocumentError(
                .encodingFailed(reason: "non-finite number (NaN or infinity) at x.1"),
                try JSONValue(encoding: Doubles(x: [0, value])))
        }
        XCTAssertDocumentError(
            .encodingFailed(reason: "non-finite number (NaN or infinity) at y.k"),
            try JSONValue(encoding: Floats(y: ["k": .nan])))
        XCTAssertDocumentError(
            .encodingFailed(reason: "non-finite number (NaN or infinity) at z"),
            try JSONValue(encoding: Decimals(z: .nan)))
        XCTAssertDocumentError(
            .encodingFailed(reason: "invalid value at the top level"), try JSONValue(encoding: Nothing()))
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        XCTAssertDocumentError(
            .encodingFailed(reason: "non-finite number (NaN or infinity) at x.0"),
            try items.insert(Doubles(x: [.nan]), id: "a"))
        XCTAssertEqual(
            DocumentError.encodingFailed(
                reason: DocumentError.describe(
                    .invalidValue(Float.infinity, .init(codingPath: [], debugDescription: "")))
            ).errorDescription,
            "the value cannot be encoded as JSON: non-finite number (NaN or infinity) at the top level")
        XCTAssertDocumentError(.notAnObject, try items.insert([1, 2], id: "a"))
        XCTAssertEqual(try items.count(), 0)
    }

    /// `depth` arrays nested, the innermost empty (when `leaf` is nil) or holding `leaf`.
    private struct Nest: Encodable {
        var depth: Int
        var leaf: JSONValue?
        func encode(to encoder: Encoder) throws {
            var container = encoder.unkeyedContainer()
            if depth > 1 {
                try container.encode(Nest(depth: depth - 1, leaf: leaf))
            } else if let leaf {
                try container.encode(leaf)
            }
        }
    }

    func testNestingPastTheLimitIsRefusedWithoutRecursingPastIt() throws {
        let limit = JSONValue.maximumDepth
        let tooDeep = DocumentError.invalidJSON(reason: "nesting deeper than \(limit)")
        XCTAssertTrue(try JSONValue(encoding: Nest(depth: limit, leaf: nil)).nests(deeperThan: limit - 1))
        XCTAssertNoThrow(try JSONValue(encoding: Nest(depth: limit, leaf: 1)))
        XCTAssertDocumentError(tooDeep, try JSONValue(encoding: Nest(depth: limit + 1, leaf: nil)))
        XCTAssertDocumentError(tooDeep, try JSONValue(encoding: Nest(depth: limit + 1, leaf: 1)))
        XCTAssertDocumentError(tooDeep, try JSONValue(encoding: Nest(depth: 50_000, leaf: nil)))
        XCTAssertNoThrow(try JSONValue(encoding: Nest(depth: limit - 1, leaf: [])))
        XCTAssertDocumentError(tooDeep, try JSONValue(encoding: Nest(depth: limit - 1, leaf: [[]])))
        var deepValue: JSONValue = []
        for _ in 0..<20_000 { deepValue = [deepValue] }
        XCTAssertDocumentError(tooDeep, try JSONValue(encoding: Nest(depth: 3, leaf: deepValue)))
    }

    /// Containers made in a loop, each inside the last, without encoding anything into them.
    private struct EmptyChain: Encodable {
        enum Keys: String, CodingKey { case k }
        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            for _ in 0..<100_000 { container = container.nestedContainer(keyedBy: Keys.self, forKey: .k) }
        }
    }

    func testContainersNestedInALoopPastTheLimitAreRefused() throws {
        XCTAssertDocumentError(
            .invalidJSON(reason: "nesting deeper than \(JSONValue.maximumDepth)"), try JSONValue(encoding: EmptyChain())
        )
    }

    func testAForeignEncoderStillEncodesAJSONValue() throws {
        let value: JSONValue = ["b": true, "n": -12, "u": .number(JSONNumber(UInt64.max)), "d": 2.5, "a": [nil, [:]]]
        XCTAssertEqual(try JSONValue(parsing: JSONEncoder().encode(value)), value)
        XCTAssertThrowsError(try JSONEncoder().encode(JSONValue.number(try XCTUnwrap(JSONNumber("1e400")))))
    }
}
