import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

final class DocumentJSONValueTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue(parsing: Array(text.utf8)) }

    func testParsesEveryTypeAndKeepsBoolsApartFromNumbers() throws {
        let value = try parse(
            #" { "t": true, "f": false, "one": 1, "zero": 0, "n": null, "s": "x", "a": [1, true, "1"], "o": {"k": -2.5e3} } "#
        )
        XCTAssertEqual(value[path: "t"], .bool(true))
        XCTAssertEqual(value[path: "f"], .bool(false))
        XCTAssertEqual(value[path: "one"], .number(1))
        XCTAssertEqual(value[path: "zero"], .number(0))
        XCTAssertEqual(value[path: "n"], .null)
        XCTAssertEqual(value[path: "a"], [1, true, "1"])
        XCTAssertEqual(value[path: "o.k"], .number(-2500))
        XCTAssertNotEqual(JSONValue.bool(true), JSONValue.number(1))
    }

    func testCodableKeepsBoolsApartFromNumbers() throws {
        let decoded = try JSONDecoder().decode(
            JSONValue.self, from: Data(#"{"b":true,"n":1,"z":0,"f":false,"d":1.5}"#.utf8))
        XCTAssertEqual(decoded, ["b": true, "n": 1, "z": 0, "f": false, "d": 1.5])
        let encoded = try JSONEncoder().encode(["b": true, "n": 1, "list": [nil, "x"]] as JSONValue)
        XCTAssertEqual(try JSONValue(parsing: encoded), ["b": true, "n": 1, "list": [nil, "x"]])
    }

    func testDecodesStringsAndEscapes() throws {
        XCTAssertEqual(try parse(#""a\"b\\c\/d\b\f\n\r\t""#), .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        XCTAssertEqual(try parse(#""\u00e9\ud83d\ude00""#), .string("é😀"))
        XCTAssertEqual(try parse("\"é😀\""), .string("é😀"))
    }

    func testRejectsInvalidJSONWithoutEchoingIt() {
        let bad = [
            "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "-", "1e", "+1", "tru",
            "nul",
            "\"abc", "\"\\x\"", "\"\\ud800\"", "\"\\udc00x\"", "\"a\u{1}b\"", "1 2", "{\"SECRET\":1,\"SECRET\":2}",
            "1e99999999999999999999", "-1.5E-99999999999999999999", "NaN", "Infinity", "-0x1", "1e+-1",
            "[SECRET]", "{\"k\": SECRET}",
        ]
        for text in bad {
            do {
                _ = try parse(text)
                XCTFail("accepted \(text.debugDescription)")
            } catch let error as DocumentError {
                guard case .invalidJSON(let reason) = error else { return XCTFail("\(error)") }
                XCTAssertFalse(reason.contains("SECRET"), reason)
                XCTAssertFalse(error.localizedDescription.contains("SECRET"))
                XCTAssertEqual(error.name, "invalidJSON")
            } catch {
                XCTFail("\(error)")
            }
        }
        XCTAssertThrowsError(try JSONValue(parsing: [0x22, 0xFF, 0xFE, 0x22]))  // invalid UTF-8
        let deep =
            String(repeating: "[", count: JSONValue.maximumDepth + 1)
            + String(repeating: "]", count: JSONValue.maximumDepth + 1)
        XCTAssertThrowsError(try parse(deep))
        let ok =
            String(repeating: "[", count: JSONValue.maximumDepth)
            + String(repeating: "]", count: JSONValue.maximumDepth)
        XCTAssertNoThrow(try parse(ok))
    }

    /// A value built in code past the depth limit is refused with a typed error, however deep
    /// (20,000 levels overflowed the stack while the depth was measured); 256 levels are stored.
    func testAValueNestedPastTheLimitInCodeIsATypedErrorNotACrash() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: nil))
        defer { store.close() }
        let notes = try store.createCollection("notes")
        func nested(_ depth: Int, objects: Bool) -> JSONValue {
            var value: JSONValue = .string("leaf")
            for _ in 0..<depth { value = objects ? .object(["k": value]) : .array([value]) }
            return value
        }
        for objects in [false, true] {
            let deep = nested(20_000, objects: objects)
            for attempt in [
                { try notes.upsert(JSONValue.object(["x": deep]), id: "deep") },
                { try notes.upsert(id: "deep", value: ["x": deep]) },
            ] {
                XCTAssertThrowsError(try attempt()) {
                    XCTAssertEqual($0 as? DocumentError, .invalidJSON(reason: "nesting deeper than 256"))
                }
            }
            let limit = nested(JSONValue.maximumDepth - 1, objects: objects)
            XCTAssertNoThrow(try notes.upsert(JSONValue.object(["x": limit]), id: "limit"))
            let past = nested(JSONValue.maximumDepth, objects: objects)
            XCTAssertThrowsError(try notes.upsert(JSONValue.object(["x": past]), id: "past")) {
                XCTAssertEqual($0 as? DocumentError, .invalidJSON(reason: "nesting deeper than 256"))
            }
        }
        XCTAssertEqual(try notes.count(), 1)
    }

    /// A `Codable` value nested past the limit (a linked list of 20,000 nodes) is `invalidJSON`,
    /// refused as it is encoded (`JSONEncoder` recursed through all of it and overflowed the
    /// stack); at the limit it is stored, and `Data`, `Date`, `URL` and `Decimal` count as the
    /// scalars they are written as.
    func testACodableValueNestedPastTheLimitIsATypedErrorNotACrash() throws {
        final class Node: Codable {
            let next: Node?
            let stamp: Data
            init(_ next: Node?) {
                self.next = next
                stamp = Data([1, 2])
            }
        }
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: nil))
        defer { store.close() }
        let notes = try store.createCollection("notes")
        func list(_ length: Int) -> Node {
            var node = Node(nil)
            for _ in 1..<length { node = Node(node) }
            return node
        }
        let deep = list(20_000)
        XCTAssertThrowsError(try notes.upsert(deep, id: "deep")) {
            XCTAssertEqual($0 as? DocumentError, .invalidJSON(reason: "nesting deeper than 256"))
        }
        XCTAssertNoThrow(try notes.upsert(list(JSONValue.maximumDepth), id: "limit"))
        XCTAssertThrowsError(try notes.upsert(list(JSONValue.maximumDepth + 1), id: "past")) {
            XCTAssertEqual($0 as? DocumentError, .invalidJSON(reason: "nesting deeper than 256"))
        }
        struct Scalars: Encodable {
            let data = Data([0xFF])
            let date = Date(timeIntervalSince1970: 1)
            let url = URL(string: "https://example.com")!
            let decimal = Decimal(string: "1.5")!
        }
        XCTAssertFalse(try JSONValue(encoding: Scalars()).nests(deeperThan: 1))
        XCTAssertTrue(try JSONValue(encoding: ["a": ["b": 1]]).nests(deeperThan: 1))
        XCTAssertFalse(try JSONValue(encoding: ["a": ["b": 1]]).nests(deeperThan: 2))
    }

    func testCanonicalSerialization() throws {
        let value = try parse(
            #" { "b" : [ 1.0, -0, 2.5, 1e300, 123456789012 ], "a" : "q\"\n\u0001é", "c": {"z": null, "y": false} } "#)
        XCTAssertEqual(
            value.canonicalString, #"{"a":"q\"\n\u0001é","b":[1,0,2.5,1e300,123456789012],"c":{"y":false,"z":null}}"#)
        XCTAssertEqual(try JSONValue(parsing: value.canonicalBytes), value)
        // Equal values serialize identically whatever their member order.
        XCTAssertEqual(try parse(#"{"x":1,"y":2}"#).canonicalBytes, try parse(#"{"y":2,"x":1.0}"#).canonicalBytes)
        XCTAssertEqual(JSONValue.number(0.1).canonicalString, "0.1")
        XCTAssertEqual(JSONValue.number(-3).canonicalString, "-3")
    }

    func testPaths() throws {
        let value: JSONValue = ["address": ["city": "Oslo", "geo": [59.9, 10.7]], "tags": ["a", "b"]]
        XCTAssertEqual(value[path: "address.city"], "Oslo")
        XCTAssertEqual(value[path: "address.geo.1"], 10.7)
        XCTAssertEqual(value[path: "tags.0"], "a")
        XCTAssertNil(value[path: "tags.2"])
        XCTAssertNil(value[path: "tags.01"])
        XCTAssertNil(value[path: "address.city.x"])
        XCTAssertNil(value[path: "missing"])
        XCTAssertNil(value[path: "address..city"])
        XCTAssertNil(value[path: ""])
    }

    func testTotalOrderAcrossTypes() {
        let ascending: [JSONValue] = [
            nil, false, true, -1e300, -1, 0, 0.5, 1, 1e300, "", "A", "B", "a", "ab", "é", "😀",
            [], [nil], [1], [1, 2], [2], ["x"], [:], ["a": 1], ["a": 2], ["a": 2, "b": 0], ["b": 0],
        ]
        for (i, a) in ascending.enumerated() {
            for (j, b) in ascending.enumerated() {
                let order = JSONValue.compare(a, b)
                XCTAssertEqual(order.signum(), (i < j ? -1 : i > j ? 1 : 0), "\(a) vs \(b)")
                XCTAssertEqual(a < b, i < j)
            }
        }
        XCTAssertEqual(JSONValue.compare(.number(-0.0), .number(0)), 0)
        XCTAssertEqual(JSONValue.number(-0.0).hashValue, JSONValue.number(0).hashValue)
    }

    func testIndexKeysAreMonotone() {
        var generator = SeededGenerator(seed: 7)
        let values: [JSONValue] =
            (0..<400).map { _ in
                switch Int.random(in: 0..<7, using: &generator) {
                case 0: return .null
                case 1: return .bool(Bool.random(using: &generator))
                case 2: return .number(JSONNumber(Int.random(in: -5...5, using: &generator)))
                case 3:
                    return .number(
                        JSONNumber(
                            Double.random(in: -1e6...1e6, using: &generator)
                                * (Bool.random(using: &generator) ? 1e-300 : 1))!)
                case 4:
                    return .string(
                        String(
                            (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                                "aAé😀\u{0}z".randomElement(using: &generator)!
                            }))
                case 5: return .array([.number(JSONNumber(Int.random(in: 0...2, using: &generator)))])
                default: return .object(["k": .number(JSONNumber(Int.random(in: 0...2, using: &generator)))])
                }
            } + [
                .number(-0.0), .number(0), .number(JSONNumber(Double.leastNonzeroMagnitude)!),
                .number(JSONNumber(-Double.leastNonzeroMagnitude)!),
                .number(JSONNumber(Double.greatestFiniteMagnitude)!),
                .number(JSONNumber(-Double.greatestFiniteMagnitude)!), .string(String(repeating: "x", count: 300)),
                .string(String(repeating: "x", count: 301)),
            ]
        for a in values {
            for b in values {
                let order = JSONValue.compare(a, b)
                let keyA = a.indexKey
                let keyB = b.indexKey
                if order == 0 { XCTAssertEqual(keyA, keyB, "\(a) == \(b)") }
                if order < 0 { XCTAssertFalse(keyB.lexicographicallyPrecedes(keyA), "\(a) < \(b)") }
            }
        }
        XCTAssertTrue(JSONValue.number(-1).indexKey.lexicographicallyPrecedes(JSONValue.number(-0.5).indexKey))
        XCTAssertTrue(JSONValue.number(1).indexKey.lexicographicallyPrecedes(JSONValue.number(2).indexKey))
    }
}
