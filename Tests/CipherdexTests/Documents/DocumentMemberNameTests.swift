import Foundation
import XCTest

@testable import CipherdexStore

/// Object member names compare by their UTF-8 bytes, as strings do: in `==`, the ordering, hashing
/// and field paths (queries, with and without an index). One object cannot hold two names that
/// differ only in Unicode form (a Swift `Dictionary` cannot): parsing refuses it, saying so.
final class DocumentMemberNameTests: XCTestCase {
    /// "café" with é as one code point, and as e and a combining acute accent; the Kelvin sign
    /// (canonically equivalent to K) and K.
    private static let pairs: [(String, String)] = [
        ("caf\u{E9}", "cafe\u{301}"), ("\u{212A}", "K"), ("\u{C5}", "\u{212B}"),
    ]

    func testNamesInAnotherUnicodeFormAreOtherNames() {
        for (first, second) in Self.pairs {
            let a = JSONValue.object([first: 1])
            let b = JSONValue.object([second: 1])
            XCTAssertNotEqual(a, b, "\(first.unicodeScalars.map(\.value)) vs \(second.unicodeScalars.map(\.value))")
            XCTAssertNotEqual(JSONValue.compare(a, b), 0)
            XCTAssertEqual(JSONValue.compare(a, a), 0)
            XCTAssertEqual(Set([a, b, a]).count, 2)
            XCTAssertEqual(a[path: first], 1)
            XCTAssertNil(a[path: second], "a field path finds its name byte for byte")
        }
    }

    func testQueriesFindOnlyTheNameAsWritten() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let plain = try store.createCollection("plain")
        let indexed = try store.createCollection("indexed")
        for (offset, (first, second)) in Self.pairs.enumerated() {
            try indexed.createIndex(on: first)
            try indexed.createIndex(on: second)
            for collection in [plain, indexed] {
                try collection.insert(id: "first\(offset)", value: [first: 5])
                try collection.insert(id: "second\(offset)", value: [second: 6])
            }
        }
        for (offset, (first, second)) in Self.pairs.enumerated() {
            for collection in [plain, indexed] {
                XCTAssertEqual(try collection.find(where: [.equal(first, 5)]).map(\.id), ["first\(offset)"])
                XCTAssertEqual(try collection.find(where: [.equal(second, 6)]).map(\.id), ["second\(offset)"])
                XCTAssertEqual(try collection.find(where: [.equal(second, 5)]).map(\.id), [])
                XCTAssertEqual(try collection.find(where: [.equal(first, 6)]).map(\.id), [])
            }
        }
    }

    /// A `Decodable`'s keys find members byte for byte too.
    func testCodableKeysMatchNamesByteForByte() throws {
        struct Cafe: Decodable, Equatable {
            let café: Int  // written with U+00E9
        }
        XCTAssertEqual(try JSONValue.object(["caf\u{E9}": 1]).decode(Cafe.self), Cafe(café: 1))
        XCTAssertThrowsError(try JSONValue.object(["cafe\u{301}": 1]).decode(Cafe.self)) { error in
            guard case .decodingFailed(let reason) = error as? DocumentError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("caf"), reason)
        }
    }

    func testAnObjectWithBothFormsOfANameIsRefusedSayingSo() throws {
        for (first, second) in Self.pairs {
            let text = Array(#"{"\#(first)":1,"\#(second)":2}"#.utf8)
            XCTAssertThrowsError(try JSONValue(parsing: text)) { error in
                guard case .invalidJSON(let reason) = error as? DocumentError else { return XCTFail("\(error)") }
                XCTAssertTrue(reason.contains("in another Unicode form (canonically equivalent)"), reason)
                XCTAssertTrue(reason.hasPrefix("the member name at byte \(first.utf8.count + 6) "), reason)
            }
        }
        XCTAssertThrowsError(try JSONValue(parsing: Array(#"{"a":1,"a":2}"#.utf8))) { error in
            XCTAssertEqual(error as? DocumentError, .invalidJSON(reason: "duplicate member name at byte 7"))
        }
    }
}

/// `invalidFieldPath` says what is wrong with the path and quotes at most 80 characters of it.
final class FieldPathProblemTests: XCTestCase {
    func testTheMessageSaysWhatIsWrong() {
        let cases: [(String, String)] = [
            ("", #"invalid field path "": it is empty"#),
            (
                "a..b",
                #"invalid field path "a..b": it has an empty component (a '.' at its start or end, or two in a row)"#
            ),
            (".a", #"invalid field path ".a": it has an empty component (a '.' at its start or end, or two in a row)"#),
            ("a\u{7}b", #"invalid field path "a\u{07}b": it holds a control character (U+0007)"#),
        ]
        for (path, message) in cases {
            XCTAssertThrowsError(try FieldPath(path)) { error in
                XCTAssertEqual(error.localizedDescription, message)
            }
        }
        let long = String(repeating: "x", count: 120_000)
        XCTAssertThrowsError(try FieldPath(long)) { error in
            let message = error.localizedDescription
            XCTAssertTrue(message.hasSuffix(": it is 120000 bytes long, longer than 512"), message)
            XCTAssertLessThan(message.count, 200, "the path is not printed back whole")
        }
    }
}
