import Foundation
import XCTest

@testable import CipherdexStore

/// `JSONValidator` (with `JSONLexer`): malformed text is refused before any value is built, with
/// exactly the error the parser gave before the validating pass existed.
final class JSONValidatorTests: XCTestCase {
    /// The reason of the `invalidJSON` error `body` throws, or nil when it throws none.
    private func reason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch DocumentError.invalidJSON(let reason) {
            return reason
        } catch {
            return "unexpected error \(error)"
        }
    }

    private func parseReason(_ bytes: [UInt8]) -> String? {
        reason { _ = try JSONValue(parsing: bytes) }
    }

    /// Each reason was recorded from `JSONValue(parsing:)` on main (a4cfff8), before the
    /// validating pass: same message, same byte offset.
    func testMalformedInputsGiveTheSameErrorsAsBefore() {
        let cases: [([UInt8], String)] = [
            (Array("".utf8), "unexpected end of input at byte 0"),
            (Array(" ".utf8), "unexpected end of input at byte 1"),
            (Array("{".utf8), "expected a member name at byte 1"),
            (Array("}".utf8), "unexpected character at byte 0"),
            (Array("[".utf8), "unexpected end of input at byte 1"),
            (Array("]".utf8), "unexpected character at byte 0"),
            (Array("{\"a\":1".utf8), "unexpected end of input at byte 6"),
            (Array("{\"a\":1,".utf8), "expected a member name at byte 7"),
            (Array("{\"a\":1,}".utf8), "expected a member name at byte 7"),
            (Array("[1,]".utf8), "unexpected character at byte 3"),
            (Array("[1 2]".utf8), "expected ',' or ']' at byte 3"),
            (Array("{\"a\" 1}".utf8), "expected ':' at byte 5"),
            (Array("{\"a\":}".utf8), "unexpected character at byte 5"),
            (Array("{a:1}".utf8), "expected a member name at byte 1"),
            (Array("{\"a\":1}x".utf8), "unexpected content after the value at byte 7"),
            (Array("{\"a\":1} x".utf8), "unexpected content after the value at byte 8"),
            (Array("tru".utf8), "invalid literal at byte 0"),
            (Array("nul".utf8), "invalid literal at byte 0"),
            (Array("falsy".utf8), "invalid literal at byte 0"),
            (Array("[tru]".utf8), "invalid literal at byte 1"),
            (Array("-".utf8), "invalid number at byte 1"),
            (Array("-a".utf8), "invalid number at byte 1"),
            (Array("01".utf8), "unexpected content after the value at byte 1"),
            (Array("1.".utf8), "invalid number at byte 2"),
            (Array("1.e5".utf8), "invalid number at byte 2"),
            (Array("1e".utf8), "invalid number at byte 2"),
            (Array("1e+".utf8), "invalid number at byte 3"),
            (Array("+1".utf8), "unexpected character at byte 0"),
            (Array(".5".utf8), "unexpected character at byte 0"),
            (Array("[00]".utf8), "expected ',' or ']' at byte 2"),
            (Array("\"abc".utf8), "unterminated string at byte 4"),
            (Array("\"a\\".utf8), "unterminated string at byte 3"),
            (Array("\"a\\x\"".utf8), "invalid escape at byte 4"),
            (Array("\"\\u12\"".utf8), "invalid \\u escape at byte 3"),
            (Array("\"\\u12G4\"".utf8), "invalid \\u escape at byte 5"),
            (Array("\"\\ud800\"".utf8), "lone surrogate escape at byte 7"),
            (Array("\"\\ud800\\u0041\"".utf8), "lone surrogate escape at byte 13"),
            (Array("\"\\udc00\"".utf8), "lone surrogate escape at byte 7"),
            ([0x22, 0x01, 0x22], "unescaped control character in a string at byte 1"),
            (Array("\"a\nb\"".utf8), "unescaped control character in a string at byte 2"),
            ([0x22, 0xFF, 0x22], "invalid UTF-8 in the string at byte 1"),
            ([0x22, 0xC3, 0x22], "invalid UTF-8 in the string at byte 1"),
            ([0x22, 0xC3, 0x5C, 0x6E, 0x22], "invalid UTF-8 in the string at byte 1"),
            ([0x22, 0x5C, 0x6E, 0xC3, 0x22], "invalid UTF-8 in the string at byte 1"),
            ([0x22, 0xE2, 0x82, 0x22], "invalid UTF-8 in the string at byte 1"),
            ([0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 in the string at byte 1"),
            ([0x22, 0xC0, 0x80, 0x22], "invalid UTF-8 in the string at byte 1"),
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "invalid UTF-8 in the string at byte 1"),
            (Array("{\"a\":1,\"a\":2}".utf8), "duplicate member name at byte 7"),
            (Array("{\"a\":1,\"a\":2,}".utf8), "duplicate member name at byte 7"),
            (Array("{\"a\":{\"b\":1,\"b\":2},\"a\":3}".utf8), "duplicate member name at byte 12"),
            (Array("{\"a\":1,\"\\u0061\":2}".utf8), "duplicate member name at byte 7"),
            (Array("{\"a\":[1,2],\"a\":x}".utf8), "unexpected character at byte 15"),
            (Array("{\"a\":1,\"a\":2".utf8), "duplicate member name at byte 7"),
            (Array("{\"Å\":1,\"Å\":2}".utf8), Self.otherForm(at: 8)),
            (Array("{\"é\":1,\"é\":2}".utf8), Self.otherForm(at: 8)),
            (Array("1e2305843009213693952".utf8), "number exponent out of range at byte 0"),
            (Array("1e-2305843009213693952".utf8), "number exponent out of range at byte 0"),
            (Array("[1e99999999999999999999999]".utf8), "number exponent out of range at byte 1"),
            (Array("10e2305843009213693951".utf8), "number exponent out of range at byte 0"),
            (Array("0.1e-2305843009213693951".utf8), "number exponent out of range at byte 0"),
            (Array("0.01e-2305843009213693951".utf8), "number exponent out of range at byte 0"),
            (Array("100e2305843009213693950".utf8), "number exponent out of range at byte 0"),
            (Array("1000e2305843009213693949".utf8), "number exponent out of range at byte 0"),
            (Array("{\"a\":1e99999999999999999999,\"a\":1}".utf8), "number exponent out of range at byte 5"),
            ([0xEF, 0xBB, 0xBF, 0x7B, 0x7D], "unexpected character at byte 0"),
            (Array("NaN".utf8), "unexpected character at byte 0"),
            (Array("[1,2,3]]".utf8), "unexpected content after the value at byte 7"),
        ]
        for (bytes, expected) in cases {
            XCTAssertEqual(parseReason(bytes), expected, String(decoding: bytes, as: UTF8.self))
        }
        // The same faults deep inside a large document keep their offsets.
        let prefix = Array(("{\"a\":[" + String(repeating: "1,", count: 100_000)).utf8)
        XCTAssertEqual(parseReason(prefix + Array("1]}x".utf8)), "unexpected content after the value at byte 200009")
        XCTAssertEqual(parseReason(prefix + Array("1,]}".utf8)), "unexpected character at byte 200008")
        XCTAssertEqual(
            parseReason(prefix + Array("{\"b\":1,\"b\":2}]}x".utf8)), "duplicate member name at byte 200013")
    }

    func testDepthLimit() {
        let limit = JSONValue.maximumDepth
        XCTAssertNil(
            parseReason(Array((String(repeating: "[", count: limit) + String(repeating: "]", count: limit)).utf8)))
        XCTAssertEqual(
            parseReason(
                Array((String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)).utf8)),
            "nesting deeper than 256 at byte 256")
        let objects = { (depth: Int) in
            Array((String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
        }
        XCTAssertNil(parseReason(objects(limit)))
        XCTAssertEqual(parseReason(objects(limit + 1)), "nesting deeper than 256 at byte 1280")
        // Far deeper than any stack would take: refused at the limit, never recursed into.
        XCTAssertEqual(
            reason {
                try Array(String(repeating: "[", count: 1_000_000).utf8).withUnsafeBufferPointer {
                    try JSONValidator.validate($0)
                }
            },
            "nesting deeper than 256 at byte 256")
    }

    /// The error for a member name that is an earlier one of its object in another Unicode form.
    private static func otherForm(at offset: Int) -> String {
        "the member name at byte \(offset) is an earlier name of its object in another Unicode form (canonically "
            + "equivalent): an object holds only one of them"
    }

    /// On random damaged documents the validator alone refuses exactly what the building parser
    /// alone refuses, with the same error; only a duplicate member name in otherwise valid text
    /// is left to the parser.
    func testValidatorAgreesWithTheBuildingParser() {
        var generator = SeededGenerator(seed: 23)
        let alphabet = Array("{}[]\",:.-+eE0123456789 \\utfnlrasx".utf8) + [0x00, 0x1F, 0xC3, 0xA9, 0xE2, 0xFF]
        var checked = 0
        for _ in 0..<4_000 {
            var bytes = Array(Self.randomDocument(&generator, depth: 0).utf8)
            Self.damage(&bytes, from: alphabet, &generator)
            let (validatorReason, parserReason) = reasons(bytes)
            if let parserReason,
                parserReason.hasPrefix("duplicate member name") || parserReason.hasPrefix("the member name"),
                validatorReason == nil
            {
                continue
            }
            XCTAssertEqual(validatorReason, parserReason, String(decoding: bytes, as: UTF8.self))
            checked += 1
        }
        XCTAssertGreaterThan(checked, 3_000)
    }

    /// Up to two random edits of `bytes`: cut, replace, insert (from `alphabet`) or remove.
    private static func damage(_ bytes: inout [UInt8], from alphabet: [UInt8], _ generator: inout SeededGenerator) {
        for _ in 0..<Int.random(in: 0...2, using: &generator) where !bytes.isEmpty {
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: bytes.removeSubrange(position...)
            case 1: bytes[position] = alphabet.randomElement(using: &generator)!
            case 2: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
            default: bytes.remove(at: position)
            }
        }
    }

    /// The validator's and the building parser's errors for `bytes` (nil: accepted).
    private func reasons(_ bytes: [UInt8]) -> (validator: String?, parser: String?) {
        let validator = reason { try bytes.withUnsafeBufferPointer { try JSONValidator.validate($0) } }
        let parser = reason {
            try bytes.withUnsafeBufferPointer { buffer in
                var parser = JSONParser(bytes: buffer)
                _ = try parser.parseDocument()
            }
        }
        return (validator, parser)
    }

    /// A small random JSON text with numbers, escapes, non-ASCII and repeated member names.
    private static func randomDocument(_ generator: inout SeededGenerator, depth: Int) -> String {
        let scalars = [
            "0", "-0", "1.50", "-12e-3", "12345678901234567890123", "1e2147483648", "true", "false", "null", "\"x\"",
            "\"\\u00e9\\n\\ud83d\\ude00\"", "\"é\"", "0.000", "9223372036854775808", "1E+2",
        ]
        let roll = Int.random(in: 0..<10, using: &generator)
        if depth > 3 || roll < 4 { return scalars.randomElement(using: &generator)! }
        let count = Int.random(in: 0...3, using: &generator)
        if roll < 7 {
            return "[" + (0..<count).map { _ in randomDocument(&generator, depth: depth + 1) }.joined(separator: ",")
                + "]"
        }
        let names = ["\"a\"", "\"b\"", "\"\\u0061\"", "\"é\"", "\"e\\u0301\""]
        return "{"
            + (0..<count).map { _ in
                names.randomElement(using: &generator)! + ":" + randomDocument(&generator, depth: depth + 1)
            }.joined(separator: ",") + "}"
    }

    /// The validator's fast paths (eight string bytes at a time, runs of numbers in an array,
    /// UTF-8 checked as it is read, names compared by their bytes until one is not ASCII) on
    /// longer random documents, damaged: the same errors as the building parser.
    func testValidatorAgreesWithTheBuildingParserOnLongerTexts() {
        var generator = SeededGenerator(seed: 41)
        let alphabet =
            Array("{}[]\",:.-+eE0123456789 \\u\n".utf8) + [
                0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC3, 0xA9, 0xE2, 0xED, 0xF0, 0xF4, 0xFF,
            ]
        var checked = 0
        var duplicates = 0
        for _ in 0..<3_000 {
            var bytes = Array(Self.randomLongDocument(&generator, depth: 0).utf8)
            Self.damage(&bytes, from: alphabet, &generator)
            let (validatorReason, parserReason) = reasons(bytes)
            if let parserReason,
                parserReason.hasPrefix("duplicate member name") || parserReason.hasPrefix("the member name")
            {
                duplicates += 1
                if validatorReason == nil { continue }
            }
            XCTAssertEqual(validatorReason, parserReason, String(decoding: bytes, as: UTF8.self))
            checked += 1
        }
        XCTAssertGreaterThan(checked, 2_000)
        XCTAssertGreaterThan(duplicates, 100)
    }

    /// A random JSON text with long strings (runs of ASCII, escapes, UTF-8 of every length),
    /// long arrays of numbers and objects of up to 14 members (names that repeat, some in
    /// another Unicode form: `K` and U+212A KELVIN SIGN, `é` and `e` + U+0301).
    private static func randomLongDocument(_ generator: inout SeededGenerator, depth: Int) -> String {
        let pieces = [
            "abcdefghij", "x", "0123456789012345", " ", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\ud83d\\ude00",
            "\\u212A",
            "é", "漢字", "😀", "\u{212A}", "e\u{301}", "\u{7F}",
        ]
        func string() -> String {
            "\""
                + (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                .joined() + "\""
        }
        let numbers = [
            "0", "-0", "7", "12", "-3", "1.5e3", "12.0", "1E+2", "0.000", "123456789012345678901234", "1e-7",
        ]
        let roll = Int.random(in: 0..<10, using: &generator)
        if depth > 3 || roll < 3 {
            return Bool.random(using: &generator) ? string() : numbers.randomElement(using: &generator)!
        }
        if roll < 5 {
            let count = Int.random(in: 0...40, using: &generator)
            return "[" + (0..<count).map { _ in numbers.randomElement(using: &generator)! }.joined(separator: ",") + "]"
        }
        let count = Int.random(in: 0...14, using: &generator)
        if roll < 7 {
            return "["
                + (0..<count).map { _ in randomLongDocument(&generator, depth: depth + 1) }.joined(separator: ", ")
                + "]"
        }
        let names = [
            "\"a\"", "\"b\"", "\"c\"", "\"d\"", "\"e\"", "\"f\"", "\"g\"", "\"h\"", "\"i\"", "\"j\"", "\"k\"",
            "\"K\"", "\"\u{212A}\"", "\"\\u212A\"", "\"\\u0061\"", "\"é\"", "\"e\u{301}\"", "\"long name of a member\"",
        ]
        var members: [String] = []
        for index in 0..<count {
            // Mostly distinct names (so that objects grow past eight members), some repeated.
            let name =
                Int.random(in: 0..<6, using: &generator) == 0
                ? names.randomElement(using: &generator)! : "\"m\(index)\""
            members.append(name + ":" + randomLongDocument(&generator, depth: depth + 1))
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// Repeated names found by the tracking pass when the text is malformed further on: in an
    /// object of more than eight members, in nested objects, and in another Unicode form of an
    /// ASCII name (U+212A KELVIN SIGN is `K`), each before a syntax error.
    func testRepeatedNamesBeforeASyntaxError() {
        let many = (0..<12).map { "\"n\($0)\":\($0)" }.joined(separator: ",")
        let cases: [(String, String)] = [
            ("{" + many + ",\"n3\":1,x}", "duplicate member name at byte \(many.utf8.count + 2)"),
            ("{" + many + ",\"n12\":1,x}", "expected a member name at byte \(many.utf8.count + 10)"),
            ("{\"a\":{\"b\":1,\"c\":2},\"b\":1,\"a\":2,x}", "duplicate member name at byte 25"),
            ("{\"a\":{\"b\":1,\"b\":2},x}", "duplicate member name at byte 12"),
            ("{\"K\":1,\"\u{212A}\":2,x}", Self.otherForm(at: 7)),
            ("{\"K\":1,\"\\u212A\":2,x}", Self.otherForm(at: 7)),
            ("{\"\u{212A}\":1,\"K\":2,x}", Self.otherForm(at: 9)),
            ("{\"é\":1,\"x\":[1,2],\"e\u{301}\":2,x}", Self.otherForm(at: 18)),
            ("{\"\\u0041\":1,\"A\":2,x}", "duplicate member name at byte 12"),
            ("[{\"a\":1,\"b\":2},{\"a\":1,\"a\":2},x]", "duplicate member name at byte 22"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(parseReason(Array(text.utf8)), expected, text)
        }
    }

    /// The first pass compares plain member names (ASCII, no escape) by their bytes, so it
    /// refuses a repeated one itself (the parser's error); a repeat among names that are not
    /// plain, in otherwise valid text, is still left to the parser.
    func testValidatorRefusesRepeatedPlainNamesItself() {
        func validatorReason(_ text: String) -> String? {
            reason { try Array(text.utf8).withUnsafeBufferPointer { try JSONValidator.validate($0) } }
        }
        let many = (0..<20).map { "\"name \($0)\":\($0)" }.joined(separator: ",")
        XCTAssertEqual(validatorReason("{\"a\":1,\"a\":2}"), "duplicate member name at byte 7")
        XCTAssertEqual(validatorReason("[{\"a\":{\"a\":1},\"b\":[],\"a\":2}]"), "duplicate member name at byte 21")
        XCTAssertEqual(
            validatorReason("{" + many + ",\"name 17\":1}"), "duplicate member name at byte \(many.utf8.count + 2)")
        XCTAssertNil(validatorReason("{" + many + ",\"name 20\":1}"))
        XCTAssertNil(validatorReason("{\"e\u{301}\":1,\"e\u{301}\":2}"))
        XCTAssertNil(validatorReason("{\"a\":1,\"\\u0061\":2}"))
        // Names that are their one spelling (`ComposedNameCheck`) are plain too, whatever their
        // script; those with a character another spelling is equivalent to are not.
        for name in ["é", "Ωμέγα", "имя", "名前", "가나", "שם", "اسم", "a b"] {
            let text = "{\"\(name)\":1,\"\(name)\":2}"
            XCTAssertEqual(validatorReason(text), "duplicate member name at byte \(name.utf8.count + 6)", name)
            XCTAssertEqual(validatorReason(text), parseReason(Array(text.utf8)), name)
        }
        for name in ["\u{212A}", "\u{2126}", "\u{1100}\u{1161}", "क्ष", "\u{1F600}", "\u{F900}"] {
            XCTAssertNil(validatorReason("{\"\(name)\":1,\"\(name)\":2}"), name)
        }
    }

    /// Which characters make a name its one spelling: those that are their own NFC, of
    /// combining class 0, outside the scripts whose vowel signs compose and the planes beyond
    /// the first.
    func testComposedNameCheck() {
        for scalar in ["a", "é", "Å", "ß", "Ω", "я", "名", "가", "ש", "ا", " "] as [Unicode.Scalar] {
            XCTAssertTrue(ComposedNameCheck.qualifies(scalar.value), "\(scalar)")
        }
        // Singletons (Kelvin, Ohm, Angstrom, a CJK compatibility ideograph), combining marks,
        // Hangul jamo, Indic letters, astral characters.
        for value: UInt32 in [0x212A, 0x2126, 0x212B, 0xF900, 0x0301, 0x0308, 0x1100, 0x1161, 0x0915, 0x0D3E, 0x1F600] {
            XCTAssertFalse(ComposedNameCheck.qualifies(value), String(value, radix: 16))
        }
        var check = ComposedNameCheck()
        for (name, plain) in [("plain", true), ("é", true), ("e\u{301}", false), ("a\\u0041", false), ("Å", true)] {
            XCTAssertEqual(Array(name.utf8).withUnsafeBufferPointer { check.isPlain($0) }, plain, name)
        }
    }

    /// The lexer's UTF-8 check accepts exactly what the standard library accepts.
    func testUTF8CheckAgreesWithTheStandardLibrary() {
        var generator = SeededGenerator(seed: 5)
        let interesting: [UInt8] = [
            0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xA0, 0x9F, 0xED, 0xEF, 0xF0, 0x90, 0x8F, 0xF4, 0xF5,
            0xFF,
        ]
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                Bool.random(using: &generator)
                    ? interesting.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            XCTAssertEqual(bytes.withUnsafeBufferPointer { JSONLexer.isValidUTF8($0) }, expected, "\(bytes)")
        }
    }

    /// The validator's complete check refuses what the parser refuses, no more: the names that
    /// differ by their bytes only are accepted.
    func testCompleteValidationAgreesWithTheParser() throws {
        let texts = [
            "{\"\u{E9}\":1,\"e\u{301}\":2}", "{\"e\u{301}\":1,\"x\":{\"e\u{301}\":2}}",
            "{\"\u{E9}\":1,\"\u{E8}\":2,\"e\u{300}\":3}", "{\"\u{1E9B}\u{323}\":1,\"\u{17F}\u{323}\u{307}\":2}",
            "{\"\u{1E9B}\u{323}\":1,\"\u{17F}\u{307}\":2}", #"{"a":1,"b":2}"#,
        ]
        // Objects of 1 to 12 names with a name that is not plain (compared in turn up to 8
        // names, hashed beyond): a repeat of a plain name, of the other form, or none.
        var generated: [String] = []
        for count in 1...12 {
            let names = (0..<count).map { "\"k\($0)\"" } + ["\"e\u{301}\""]
            for last in ["\"\u{E9}\"", "\"k\(count / 2)\"", "\"k\(count - 1)\"", "\"z\"", "\"e\u{301}x\""] {
                generated.append("{" + (names + [last]).map { $0 + ":1" }.joined(separator: ",") + "}")
            }
        }
        // Nested: a plain outer object whose inner object turns to names that are not plain
        // after more than 8 names, sibling objects reusing names, and a repeat in the outer
        // object after the inner one closed.
        let inner = (0..<10).map { "\"k\($0)\":1" }.joined(separator: ",")
        generated += [
            "{\"a\":{\(inner),\"e\u{301}\":1,\"\u{E9}\":2},\"b\":1}",
            "{\"a\":{\(inner),\"e\u{301}\":1},\"b\":{\"e\u{301}\":1,\"k3\":2,\"k3\":3}}",
            "{\"e\u{301}\":{\(inner),\"e\u{301}\":1},\"k1\":1,\"\u{E9}\":2}",
            "[{\"e\u{301}\":1,\"x\":2},{\"e\u{301}\":1,\"x\":2},{\"\u{E9}\":1,\"e\u{301}\":2}]",
        ]
        for text in texts + generated {
            let bytes = Array(text.utf8)
            let parsed = Result { try JSONValue(parsing: bytes) }
            let validated = Result {
                try bytes.withUnsafeBufferPointer { try JSONValidator.validate($0, completely: true) }
            }
            switch (parsed, validated) {
            case (.success, .success): break
            case (.failure(let a as DocumentError), .failure(let b as DocumentError)): XCTAssertEqual(a, b, text)
            default: XCTFail("\(text): parser \(parsed), validator \(validated)")
            }
        }
    }
}
