import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Numbers come back from a store exactly as written, and queries compare them exactly, with
/// and without an index, also in a store whose index keys were written in the old format.
final class DocumentNumberTests: XCTestCase {
    private static let texts = [
        "12345678901234567890", "9007199254740993", "9007199254740992", "-9223372036854775808",
        "9223372036854775807", "18446744073709551615", "1e400", "1e-400", "-1e400",
        "3.14159265358979323846264338327950288", "0.1", "1e-7", "5e-324", "1.7976931348623157e308",
        String(repeating: "9", count: 120), "0",
    ]

    func testRawJSONRoundTripsEveryNumberAsWritten() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        for (offset, text) in Self.texts.enumerated() {
            try items.insert(id: "d\(offset)", json: DocumentTestSupport.json(#"{"n":\#(text)}"#))
        }
        for (offset, text) in Self.texts.enumerated() {
            let stored = try XCTUnwrap(try items.get(id: "d\(offset)")?.value)
            XCTAssertEqual(stored.canonicalString, #"{"n":\#(text)}"#)
            XCTAssertEqual(stored[path: "n"]?.jsonNumberValue?.description, text)
        }
    }

    private struct Numbers: Codable, Equatable {
        var int64Min = Int64.min
        var int64Max = Int64.max
        var beyondDoubles: Int64 = (1 << 53) + 1
        var uint64Max = UInt64.max
        var decimal = Decimal(string: "3.14159265358979323846264338327950288")!
        var doubles: [Double] = [0.1, 1.0 / 3, Double.leastNonzeroMagnitude, .greatestFiniteMagnitude, -1e-7, 1e21, 0, 123456789.125]
        var negativeDecimal = Decimal(string: "-0.000000000000000000000000000000012345")!
        var ints: [Int] = [.min, .max, 0, -1]
    }

    func testCodableRoundTripsLikeFoundation() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        let value = Numbers()
        let foundation = try JSONDecoder().decode(Numbers.self, from: JSONEncoder().encode(value))
        XCTAssertEqual(foundation, value, "Foundation itself round-trips these")
        try items.insert(value, id: "n")
        XCTAssertEqual(try items.get(Numbers.self, id: "n"), value)
        let stored = try XCTUnwrap(try items.get(id: "n")?.value)
        XCTAssertEqual(stored[path: "int64Max"]?.jsonNumberValue?.int64Value, .max)
        XCTAssertEqual(stored[path: "uint64Max"]?.jsonNumberValue?.uint64Value, .max)
        XCTAssertEqual(stored[path: "beyondDoubles"], .number(JSONNumber(Int64(1 << 53) + 1)))
        // JSONValue's own Codable conformance is exact too, through Foundation's coders.
        let viaFoundation = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(stored))
        XCTAssertEqual(viaFoundation, stored)
        XCTAssertThrowsError(try JSONEncoder().encode(JSONValue.number(try XCTUnwrap(JSONNumber("1e400")))))
    }

    private func makeCollection(_ store: Store, indexed: Bool) throws -> DocumentCollection {
        let items = try store.createCollection(indexed ? "indexed" : "plain", indexedFields: indexed ? ["n"] : [])
        for (offset, text) in Self.queryTexts.enumerated() {
            try items.insert(id: String(format: "d%02d", offset), json: DocumentTestSupport.json(#"{"n":\#(text)}"#))
        }
        return items
    }

    private static let queryTexts = [
        "9007199254740992", "9007199254740993", "12345678901234567890", "12345678901234567891",
        "3.14159265358979323846264338327950288", "3.14159265358979323846264338327950289", "1e400", "1e-400", "0",
        "-9007199254740993", "-9007199254740992", "-1e400", "9007199254740992.5",
    ]

    private func ids(_ collection: DocumentCollection, _ predicates: [FieldPredicate]) throws -> [String] {
        try collection.find(where: predicates).map(\.id)
    }

    /// The ids whose number compares as `holds` says with `operand`, by `Decimal` where it can
    /// and by the written text for the two numbers beyond its range.
    private func expected(_ holds: (Int) -> Bool, _ operand: String) -> [String] {
        func value(_ text: String) -> Decimal {
            switch text {
            case "1e400": return Decimal.greatestFiniteMagnitude
            case "-1e400": return -Decimal.greatestFiniteMagnitude
            case "1e-400": return Decimal(string: "1e-127")!
            default: return Decimal(string: text)!
            }
        }
        let target = value(operand)
        return Self.queryTexts.enumerated().compactMap { offset, text in
            let order = value(text) < target ? -1 : (value(text) > target ? 1 : 0)
            return holds(order) ? String(format: "d%02d", offset) : nil
        }
    }

    func testEqualityAndRangeQueriesAreExactWithAndWithoutAnIndex() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        for indexed in [false, true] {
            let items = try makeCollection(store, indexed: indexed)
            XCTAssertEqual(try items.explain(where: [.equal("n", 0)]), indexed ? .indexScan("n") : .fullScan)
            for operand in Self.queryTexts {
                let number = JSONValue.number(try XCTUnwrap(JSONNumber(operand)))
                let label = "\(operand) indexed: \(indexed)"
                XCTAssertEqual(try ids(items, [.equal("n", number)]), expected({ $0 == 0 }, operand), label)
                XCTAssertEqual(try ids(items, [.lessThan("n", number)]), expected({ $0 < 0 }, operand), label)
                XCTAssertEqual(try ids(items, [.lessThanOrEqual("n", number)]), expected({ $0 <= 0 }, operand), label)
                XCTAssertEqual(try ids(items, [.greaterThan("n", number)]), expected({ $0 > 0 }, operand), label)
                XCTAssertEqual(
                    try ids(items, [.greaterThanOrEqual("n", number)]), expected({ $0 >= 0 }, operand), label)
            }
            XCTAssertEqual(try ids(items, [.equal("n", 9_007_199_254_740_992)]), ["d00"])
            let sorted = try items.find(orderBy: [.ascending("n")]).map { $0.value[path: "n"]!.canonicalString }
            XCTAssertEqual(
                sorted,
                [
                    "-1e400", "-9007199254740993", "-9007199254740992", "0", "1e-400",
                    "3.14159265358979323846264338327950288", "3.14159265358979323846264338327950289",
                    "9007199254740992", "9007199254740992.5", "9007199254740993", "12345678901234567890",
                    "12345678901234567891", "1e400",
                ])
        }
    }

    /// The index key numbers had before schema version 5: the double's 8 bytes, ordered.
    private static func legacyIndexKey(_ value: JSONValue) -> [UInt8] {
        guard case .number(let number) = value else { return value.indexKey }
        let double = number.doubleValue
        let bits = (double == 0 ? 0 : double).bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        return [0x30] + stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: ordered >> UInt64($0)) }
    }

    func testStoreWithOldIndexKeysIsMigratedAndAnswersExactly() throws {
        let path = TestSupport.temporaryPath()
        do {
            let store = try DocumentTestSupport.openStore(path: path)
            defer { store.close() }
            let items = try store.createCollection("items", indexedFields: ["n", "tag"])
            for offset in 0..<40 {
                try items.insert(
                    id: String(format: "d%02d", offset), value: ["n": .number(JSONNumber(offset - 20)), "tag": "t"])
            }
            // Rewrite the store as version 4 left it: number keys as ordered doubles.
            try store.write { db in
                let rows = try db.rows(
                    "SELECT i.rowid, d.body FROM document_index AS i JOIN documents AS d ON d.rowid = i.doc WHERE i.field = 'n'"
                )
                for row in rows {
                    let body = try JSONValue(parsing: row[1].blobValue!)
                    try db.execute(
                        "UPDATE document_index SET key = ? WHERE rowid = ?",
                        [.blob(Self.legacyIndexKey(body[path: "n"]!)), row[0]])
                }
                try db.execute("DELETE FROM cipherdex_schema WHERE version >= 5")
            }
        }
        let store = try DocumentTestSupport.openStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
        let items = try store.collection("items")
        XCTAssertEqual(try items.explain(where: [.equal("n", 3)]), .indexScan("n"))
        XCTAssertEqual(try ids(items, [.equal("n", 3)]), ["d23"])
        XCTAssertEqual(try ids(items, [.lessThan("n", -18)]), ["d00", "d01"])
        XCTAssertEqual(try ids(items, [.greaterThanOrEqual("n", 18)]), ["d38", "d39"])
        XCTAssertEqual(try ids(items, [.equal("tag", "t")]).count, 40)
        XCTAssertEqual(
            try store.read { try DocumentStorage(db: $0).indexEntryCount(collection: "items", field: "n") }, 40)
    }
}
