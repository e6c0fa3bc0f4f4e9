import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `JSONValue.decode(_:)` (and so `get(T.self)` and `find(T.self)`) decodes straight from the
/// value: with the same results and errors as Foundation's `JSONDecoder` wherever that is
/// exact, with coding paths in every error, and with `Date`, `Data`, `URL` and `Decimal` read
/// as `JSONDecoder`'s default strategies read them.
final class DocumentDecoderTests: XCTestCase {
    fileprivate struct Everything: Codable, Equatable {
        enum Kind: Codable, Equatable {
            case plain
            case pair(Int, name: String)
            case list(x: [String])
        }
        struct Nested: Codable, Equatable { var deeper: [String: [Int?]] }
        var int: Int
        var int8: Int8
        var int16: Int16
        var int32: Int32
        var int64: Int64
        var uint: UInt
        var uint8: UInt8
        var uint16: UInt16
        var uint32: UInt32
        var uint64: UInt64
        var double: Double
        var float: Float
        var bool: Bool
        var string: String
        var optional: Int?
        var absent: String?
        var null: Double?
        var list: [[Int?]]
        var map: [String: [Double]]
        var intKeys: [Int: String]
        var nested: Nested
        var kinds: [Kind]
        var set: Set<String>
        var date: Date
        var data: Data
        var url: URL
        var decimal: Decimal
    }

    private static let everything = #"""
        {"int":-5,"int8":-128,"int16":32767,"int32":-2147483648,"int64":9223372036854775807,"uint":7,
         "uint8":255,"uint16":65535,"uint32":4294967295,"uint64":18446744073709551615,"double":0.1,
         "float":1.5,"bool":true,"string":"a\"b/é\u0000","optional":3,"null":null,"list":[[1,null],[]],
         "map":{"x":[1e300,-2.5],"y":[]},"intKeys":{"1":"one","20":"twenty"},
         "nested":{"deeper":{"k":[null,2]}},"kinds":[{"plain":{}},{"pair":{"_0":4,"name":"n"}},
         {"list":{"x":["p"]}}],"set":["s"],"date":123.25,"data":"AQID","url":"https://example.com/a?b#c",
         "decimal":3.14159265358979323846264338327950288}
        """#

    /// A type that uses every container operation by hand.
    fileprivate struct Manual: Codable, Equatable {
        struct Base: Codable, Equatable { var id: String }
        enum Keys: String, CodingKey { case header, list, rate, base, count }
        enum HeaderKeys: String, CodingKey { case version }
        var version: Int
        var strings: [String]
        var nulls: Int
        var listCount: Int?
        var rate: Double?
        var base: Base
        var superValue: String
        var allKeys: [String]

        init(from decoder: Decoder) throws {
            let keyed = try decoder.container(keyedBy: Keys.self)
            allKeys = keyed.allKeys.map(\.stringValue).sorted()
            let header = try keyed.nestedContainer(keyedBy: HeaderKeys.self, forKey: .header)
            version = try header.decode(Int.self, forKey: .version)
            var list = try keyed.nestedUnkeyedContainer(forKey: .list)
            listCount = list.count
            strings = []
            nulls = 0
            while !list.isAtEnd {
                if try list.decodeNil() {
                    nulls += 1
                } else {
                    XCTAssertEqual(list.currentIndex, strings.count + nulls)
                    strings.append(try list.decode(String.self))
                }
            }
            rate = try keyed.decodeIfPresent(Double.self, forKey: .rate)
            base = try Base(from: keyed.superDecoder(forKey: .base))
            superValue = try String(from: keyed.superDecoder())
        }

        func encode(to encoder: Encoder) throws {
            var keyed = encoder.container(keyedBy: Keys.self)
            var header = keyed.nestedContainer(keyedBy: HeaderKeys.self, forKey: .header)
            try header.encode(version, forKey: .version)
            var list = keyed.nestedUnkeyedContainer(forKey: .list)
            for string in strings { try list.encode(string) }
            for _ in 0..<nulls { try list.encodeNil() }
            try keyed.encodeIfPresent(rate, forKey: .rate)
            try base.encode(to: keyed.superEncoder(forKey: .base))
            try superValue.encode(to: keyed.superEncoder())
        }
    }

    /// Decodes `text` as `type` with `JSONDecoder` and with `JSONValue.decode`, asserts both give
    /// equal values or errors with the same reason, and returns `"ok"` or that reason.
    @discardableResult
    private func both<T: Decodable & Equatable>(
        _ type: T.Type, _ text: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        func reason(_ error: any Error) -> String {
            switch error {
            case let error as DecodingError: return DocumentError.describe(error)
            case DocumentError.decodingFailed(let reason): return reason
            default: return "\(error)"
            }
        }
        let data = Data(text.utf8)
        let foundation = Result { try JSONDecoder().decode(type, from: data) }
        let ours = Result { try JSONValue(parsing: data).decode(type) }
        switch (foundation, ours) {
        case (.success(let expected), .success(let value)):
            XCTAssertEqual(value, expected, text, file: file, line: line)
            return "ok"
        case (.failure(let expected), .failure(let error)):
            XCTAssertEqual(reason(error), reason(expected), text, file: file, line: line)
            return reason(error)
        default:
            XCTFail("\(text): JSONDecoder \(foundation), ours \(ours)", file: file, line: line)
            return ""
        }
    }

    func testDecodesLikeJSONDecoderWhereThatIsExact() throws {
        XCTAssertEqual(try both(Everything.self, Self.everything), "ok")
        let value = try JSONValue(parsing: Data(Self.everything.utf8))
        XCTAssertEqual(
            try value.decode(Everything.self),
            try JSONDecoder().decode(Everything.self, from: Data(Self.everything.utf8)))
        let manual = #"{"header":{"version":2},"list":["a",null,"b",null],"base":{"id":"i"},"super":"s"}"#
        let decoded = try JSONValue(parsing: Data(manual.utf8)).decode(Manual.self)
        XCTAssertEqual(decoded, try JSONDecoder().decode(Manual.self, from: Data(manual.utf8)))
        XCTAssertEqual(decoded.strings, ["a", "b"])
        XCTAssertEqual(decoded.nulls, 2)
        XCTAssertEqual(decoded.listCount, 4)
        XCTAssertNil(decoded.rate)
        XCTAssertEqual(decoded.superValue, "s")
        XCTAssertEqual(decoded.allKeys, ["base", "header", "list"])
        XCTAssertEqual(
            try JSONValue(
                parsing: Data(#"{"header":{"version":2},"list":[],"rate":null,"base":{"id":"i"},"super":""}"#.utf8)
            )
            .decode(Manual.self).rate, nil)
    }

    func testErrorsAreJSONDecodersWithTheirCodingPaths() throws {
        let cases: [String] = [
            #"{"header":{"version":"2"},"list":[],"base":{"id":"i"},"super":"s"}"#,
            #"{"header":{},"list":[],"base":{"id":"i"},"super":"s"}"#,
            #"{"header":{"version":null},"list":[],"base":{"id":"i"},"super":"s"}"#,
            #"{"header":[],"list":[],"base":{"id":"i"},"super":"s"}"#,
            #"{"header":null,"list":[],"base":{"id":"i"},"super":"s"}"#,
            #"{"list":[],"base":{"id":"i"},"super":"s"}"#,
            #"{"header":{"version":1},"list":{},"base":{"id":"i"},"super":"s"}"#,
            #"{"header":{"version":1},"list":[1],"base":{"id":"i"},"super":"s"}"#,
            #"{"header":{"version":1},"list":[],"rate":"x","base":{"id":"i"},"super":"s"}"#,
            #"{"header":{"version":1},"list":[],"base":{"ID":"i"},"super":"s"}"#,
            #"{"header":{"version":1},"list":[],"super":"s"}"#,
            #"{"header":{"version":1},"list":[],"base":{"id":"i"}}"#,
            #"[]"#, #"null"#, #""x""#,
        ]
        for text in cases {
            XCTAssertNotEqual(try both(Manual.self, text), "ok", text)
        }
        let everything = try JSONValue(parsing: Data(Self.everything.utf8))
        for (path, replacement) in [
            ("list", #"[[1,"x"]]"#), ("map", #"{"x":[true]}"#), ("kinds", #"[{"pair":{"_0":4}}]"#),
            ("nested", #"{"deeper":{"k":[1,{}]}}"#), ("intKeys", #"{"x":"y"}"#), ("date", #""now""#),
            ("data", "1"), ("url", "[]"), ("set", "[1]"), ("int8", "null"),
        ] {
            var members = try XCTUnwrap(everything.objectValue)
            members[path] = try JSONValue(parsing: Data(replacement.utf8))
            let text = JSONValue.object(members).canonicalString
            XCTAssertTrue(try both(Everything.self, text).contains(" at \(path)"), path)
        }
    }

    private struct Items: Decodable { var items: [Item] }
    private struct Item: Decodable { var v: Int }

    func testNumberErrorsNameTheTypeAndTheCodingPath() throws {
        let value = try JSONValue(parsing: Data(#"{"items":[{"v":1},{"v":1},{"v":1.5}]}"#.utf8))
        XCTAssertDocumentError(
            .decodingFailed(reason: "number not representable as Int at items.2.v"), try value.decode(Items.self))
        let top = JSONValue.number(try XCTUnwrap(JSONNumber("1e-400")))
        XCTAssertDocumentError(
            .decodingFailed(reason: "number not representable as Int at the top level"), try top.decode(Int.self))
        XCTAssertDocumentError(
            .decodingFailed(reason: "number not representable as Double at 1"),
            try JSONValue.array([1, top]).decode([Double].self))
        XCTAssertDocumentError(
            .decodingFailed(reason: "number not representable as UInt8 at k.0"),
            try JSONValue.object(["k": [-1]]).decode([String: [UInt8]].self))
    }

    private struct Special: Codable, Equatable {
        var date: Date
        var data: Data
        var url: URL
        var decimal: Decimal
    }

    func testDateDataURLAndDecimalDecodeAsJSONDecodersDefaultStrategiesRead() throws {
        let text = #"{"date":-1.5e3,"data":"/+8=","url":"https://example.com/a b","decimal":-12.50}"#
        let special = try JSONValue(parsing: Data(text.utf8)).decode(Special.self)
        XCTAssertEqual(special, try JSONDecoder().decode(Special.self, from: Data(text.utf8)))
        XCTAssertEqual(special.date, Date(timeIntervalSinceReferenceDate: -1500))
        XCTAssertEqual(special.data, Data([0xFF, 0xEF]))
        XCTAssertEqual(special.url.absoluteString, "https://example.com/a%20b")
        XCTAssertEqual(special.decimal, Decimal(string: "-12.5"))
        // At the top level too.
        XCTAssertEqual(try JSONValue.string("AQI=").decode(Data.self), Data([1, 2]))
        XCTAssertEqual(try JSONValue.string("https://x.y").decode(URL.self), URL(string: "https://x.y"))
        XCTAssertEqual(try JSONValue.number(0.5).decode(Date.self), Date(timeIntervalSinceReferenceDate: 0.5))
        XCTAssertEqual(try JSONValue.number(0.5).decode(Decimal.self), Decimal(string: "0.5"))
        // Refused as JSONDecoder refuses them.
        for (field, replacement) in [
            ("data", #""AQI""#), ("data", "[1,2]"), ("url", #""""#), ("url", "1"), ("date", #""2024-01-01""#),
            ("decimal", #""1""#), ("decimal", "true"),
        ] {
            let damaged = text.replacingOccurrences(
                of: #""\#(field)":"#, with: #""\#(field)":\#(replacement),"ignored":"#)
            XCTAssertTrue(try both(Special.self, damaged).hasSuffix(" at \(field)"), damaged)
        }
    }

    func testAForeignDecoderStillDecodesAJSONValue() throws {
        let text = #"{"b":true,"n":-12,"u":18446744073709551615,"d":2.5,"s":"x","a":[null,{}]}"#
        let viaFoundation = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        XCTAssertEqual(viaFoundation, try JSONValue(parsing: Data(text.utf8)))
        let plist = try PropertyListEncoder().encode(["a": 1, "b": 2])
        XCTAssertEqual(try PropertyListDecoder().decode(JSONValue.self, from: plist), ["a": 1, "b": 2])
    }
}
