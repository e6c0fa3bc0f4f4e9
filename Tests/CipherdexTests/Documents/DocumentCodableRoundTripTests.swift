import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Reading a document into a `Codable` type and writing it back keeps every number exactly:
/// a `JSONValue` anywhere in the type gets the stored subtree, and an integer field refuses a
/// number that is not an integer it can hold instead of rounding it.
final class DocumentCodableRoundTripTests: XCTestCase {
    private struct Holder: Codable {
        var v: JSONValue
    }

    private struct Deep: Codable {
        struct Inner: Codable {
            var list: [JSONValue]
            var map: [String: JSONValue]
            var maybe: JSONValue?
        }
        var inner: Inner
    }

    /// Numbers Foundation's `JSONDecoder` changed (rounded, cut or flushed to zero) on the way
    /// into a `JSONValue`, and a few it kept.
    static let numbers = [
        "1.0000000000000000000001", "0.99999999999999999999", "9007199254740993.5", "123456789012345678.9",
        "1e-400", "-1e-400", "5e-325", "2.5e-324", "12345678901234567890123456789012345678901234567890",
        "-12345678901234567890123456789012345678901234567890", "1e400", "-1e400", "1e-30",
        "3.14159265358979323846264338327950288", "18446744073709551616", "-9223372036854775809", "0.1", "1e21",
    ]

    func testAJSONValueFieldRoundTripsEveryNumberExactly() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        for text in Self.numbers {
            let expected = try XCTUnwrap(JSONNumber(text), text)
            try items.upsert(id: "stored", json: DocumentTestSupport.json(#"{"v":\#(text)}"#))
            let holder = try XCTUnwrap(try items.get(Holder.self, id: "stored"), text)
            XCTAssertEqual(holder.v, .number(expected), text)
            try items.upsert(holder, id: "rewritten")
            XCTAssertEqual(
                try items.get(id: "rewritten")?.value.canonicalString, #"{"v":\#(expected.description)}"#, text)
            XCTAssertEqual(try items.get(id: "rewritten")?.value, try items.get(id: "stored")?.value, text)
        }
    }

    func testJSONValuesInsideArraysDictionariesAndOptionalsAreTheStoredSubtrees() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        let list = Self.numbers.joined(separator: ",")
        let map = Self.numbers.enumerated().map { #""k\#($0.offset)":\#($0.element)"# }.joined(separator: ",")
        let text = #"{"inner":{"list":[\#(list),[1e-400,{"x":1e400}]],"map":{\#(map)},"maybe":1e-400}}"#
        try items.upsert(id: "stored", json: DocumentTestSupport.json(text))
        let stored = try XCTUnwrap(try items.get(id: "stored")?.value)
        let deep = try XCTUnwrap(try items.get(Deep.self, id: "stored"))
        XCTAssertEqual(JSONValue.array(deep.inner.list), stored[path: "inner.list"])
        XCTAssertEqual(JSONValue.object(deep.inner.map), stored[path: "inner.map"])
        XCTAssertEqual(deep.inner.maybe, stored[path: "inner.maybe"])
        try items.upsert(deep, id: "rewritten")
        XCTAssertEqual(try items.get(id: "rewritten")?.value.canonicalBytes, stored.canonicalBytes)
        // Through the value's own decode and encode as well.
        XCTAssertEqual(try JSONValue(encoding: try stored.decode(Deep.self)), stored)
        XCTAssertEqual(try stored.decode(JSONValue.self), stored)
    }

    func testAJSONValueInsideAnEncodableIsInsertedExactly() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        for text in ["12345678901234567890123456789012345678901234567890", "1e-400", "1e400", "9007199254740993.5"] {
            let number = JSONValue.number(try XCTUnwrap(JSONNumber(text)))
            try items.upsert(Holder(v: number), id: "d")
            XCTAssertEqual(try items.get(id: "d")?.value, ["v": number], text)
            XCTAssertEqual(try JSONValue(encoding: Holder(v: number)), ["v": number], text)
            XCTAssertEqual(try JSONValue(encoding: [number, [number]]), [number, [number]], text)
        }
    }

    private struct Typed<Value: Codable>: Codable {
        var v: Value
    }

    /// `get(Typed<T>.self)` of `{"v": text}`: its value, or the `decodingFailed` reason.
    private func typed<T: Codable>(_ type: T.Type, _ text: String, in items: DocumentCollection) throws -> String {
        try items.upsert(id: "t", json: DocumentTestSupport.json(#"{"v":\#(text)}"#))
        do {
            guard let value = try items.get(Typed<T>.self, id: "t") else { return "no document" }
            return "\(value.v)"
        } catch DocumentError.decodingFailed(let reason) {
            return "decodingFailed: \(reason)"
        }
    }

    func testIntegerFieldsAreExactOrATypedError() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        func refused(_ name: String) -> String { "decodingFailed: number not representable as \(name) at v" }
        for text in ["1.0000000000000000000001", "0.99999999999999999999", "1e-400", "-1e-400", "1.5", "5e-325"] {
            XCTAssertEqual(try typed(Int.self, text, in: items), refused("Int"), text)
            XCTAssertEqual(try typed(UInt64.self, text, in: items), refused("UInt64"), text)
            XCTAssertEqual(try typed(Int8.self, text, in: items), refused("Int8"), text)
            XCTAssertEqual(try typed(UInt.self, text, in: items), refused("UInt"), text)
        }
        XCTAssertEqual(try typed(Int.self, "1e2", in: items), "100")
        XCTAssertEqual(try typed(Int.self, "1.0", in: items), "1")
        XCTAssertEqual(try typed(Int.self, "-0", in: items), "0")
        XCTAssertEqual(try typed(Int.self, "-9223372036854775808", in: items), "-9223372036854775808")
        XCTAssertEqual(try typed(Int.self, "9223372036854775807", in: items), "9223372036854775807")
        XCTAssertEqual(try typed(Int.self, "9223372036854775808", in: items), refused("Int"))
        XCTAssertEqual(
            try typed(Int.self, "12345678901234567890123456789012345678901234567890", in: items), refused("Int"))
        XCTAssertEqual(try typed(UInt64.self, "18446744073709551615", in: items), "18446744073709551615")
        XCTAssertEqual(try typed(UInt64.self, "1.8446744073709551615e19", in: items), "18446744073709551615")
        XCTAssertEqual(try typed(UInt64.self, "18446744073709551616", in: items), refused("UInt64"))
        XCTAssertEqual(try typed(UInt64.self, "-1", in: items), refused("UInt64"))
        XCTAssertEqual(try typed(Int8.self, "-128", in: items), "-128")
        XCTAssertEqual(try typed(Int8.self, "128", in: items), refused("Int8"))
        XCTAssertEqual(try typed(UInt8.self, "255", in: items), "255")
        XCTAssertEqual(try typed(UInt8.self, "256", in: items), refused("UInt8"))
        XCTAssertEqual(try typed(Int16.self, "-32768", in: items), "-32768")
        XCTAssertEqual(try typed(UInt16.self, "65536", in: items), refused("UInt16"))
        XCTAssertEqual(try typed(Int32.self, "2147483648", in: items), refused("Int32"))
        XCTAssertEqual(try typed(UInt32.self, "4294967295", in: items), "4294967295")
        XCTAssertEqual(try typed(Int64.self, "-9.223372036854775808e18", in: items), "-9223372036854775808")
        XCTAssertEqual(
            try typed(Int128.self, "-1.7014118346046923173168730371588410572800e38", in: items), "\(Int128.min)")
        XCTAssertEqual(try typed(Int128.self, "1.5", in: items), refused("Int128"))
        XCTAssertEqual(try typed(UInt128.self, "\(UInt128.max)", in: items), "\(UInt128.max)")
        XCTAssertEqual(try typed(UInt128.self, "\(UInt128.max)0", in: items), refused("UInt128"))
        XCTAssertEqual(try typed(Int.self, "true", in: items), "decodingFailed: expected Int at v")
        XCTAssertEqual(try typed(Int.self, #""1""#, in: items), "decodingFailed: expected Int at v")
        XCTAssertEqual(try typed(Int.self, "null", in: items), "decodingFailed: missing Int value at v")
    }

    func testFloatingPointFieldsGetTheNearestValueAndRefuseOverflowAndUnderflow() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        XCTAssertEqual(try typed(Double.self, "1.0000000000000000000001", in: items), "1.0")
        XCTAssertEqual(try typed(Double.self, "9007199254740993", in: items), "9007199254740992.0")
        XCTAssertEqual(try typed(Double.self, "2.5e-324", in: items), "5e-324")
        XCTAssertEqual(try typed(Double.self, "0.1", in: items), "0.1")
        XCTAssertEqual(try typed(Double.self, "-0", in: items), "0.0")
        for text in ["1e400", "-1e400", "1e-400", "5e-325", "2e308"] {
            XCTAssertEqual(
                try typed(Double.self, text, in: items), "decodingFailed: number not representable as Double at v", text
            )
        }
        // Rounded once from the exact number (through a double it would round to 1).
        XCTAssertEqual(try typed(Float.self, "1.0000000596046447753906251", in: items), "1.0000001")
        XCTAssertEqual(try typed(Float.self, "0.1", in: items), "0.1")
        XCTAssertEqual(try typed(Float.self, "16777217", in: items), "16777216.0")
        for text in ["3.5e38", "1e-50"] {
            XCTAssertEqual(
                try typed(Float.self, text, in: items), "decodingFailed: number not representable as Float at v", text)
        }
        XCTAssertEqual(try typed(Double.self, "true", in: items), "decodingFailed: expected Double at v")
        XCTAssertEqual(try typed(Double.self, #""1""#, in: items), "decodingFailed: expected Double at v")
    }

    func testDecimalFieldsAreExactOrATypedError() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        let pi = "3.14159265358979323846264338327950288"
        XCTAssertEqual(try typed(Decimal.self, pi, in: items), pi)
        XCTAssertEqual(try typed(Decimal.self, "0.1", in: items), "0.1")
        XCTAssertEqual(try typed(Decimal.self, "-1e-30", in: items), "-0.000000000000000000000000000001")
        XCTAssertEqual(try typed(Decimal.self, "1e2", in: items), "100")
        for text in ["12345678901234567890123456789012345678901234567890", "1e-400", "1e400", "1e-130", "1e130"] {
            XCTAssertEqual(
                try typed(Decimal.self, text, in: items), "decodingFailed: number not representable as Decimal at v",
                text)
        }
        XCTAssertEqual(try typed(Decimal.self, #""1""#, in: items), "decodingFailed: expected Decimal at v")
    }

    func testStringsAndBoolsAreNotCoerced() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.createCollection("items")
        XCTAssertEqual(try typed(String.self, "1", in: items), "decodingFailed: expected String at v")
        XCTAssertEqual(try typed(String.self, "true", in: items), "decodingFailed: expected String at v")
        XCTAssertEqual(try typed(String.self, #""1e-400""#, in: items), "1e-400")
        XCTAssertEqual(try typed(Bool.self, "1", in: items), "decodingFailed: expected Bool at v")
        XCTAssertEqual(try typed(Bool.self, #""true""#, in: items), "decodingFailed: expected Bool at v")
        XCTAssertEqual(try typed(Bool.self, "false", in: items), "false")
    }
}
