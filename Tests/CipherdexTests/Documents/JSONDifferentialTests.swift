import Foundation
import XCTest

@testable import CipherdexStore

/// The JSON parser against Foundation's `JSONSerialization` on generated valid documents: the
/// same values, numbers exact (issue 14).
final class JSONDifferentialTests: XCTestCase {
    /// A reproducible generator (SplitMix64), so a failure names its seed.
    private struct Generator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    /// Characters strings are drawn from: ASCII, escapes, controls, Latin, CJK, RTL, astral.
    private static let scalars: [Unicode.Scalar] = Array(
        "aZ09 _-\"\\/\u{08}\u{0C}\n\r\t\u{01}\u{1F}éß東京ﬁשלוםم😀𝄞\u{7F}\u{2028}".unicodeScalars)

    /// JSON text for a random string, with a mix of literal characters and escapes.
    private func string(_ generator: inout Generator) -> String {
        var text = "\""
        for _ in 0..<generator.below(12) {
            let scalar = Self.scalars[generator.below(Self.scalars.count)]
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case "/": text += generator.below(2) == 0 ? "/" : "\\/"
            default:
                if scalar.value < 0x20 || generator.below(4) == 0 {
                    // \uXXXX, as a surrogate pair above the BMP.
                    for unit in String(scalar).utf16 { text += String(format: "\\u%04x", unit) }
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text + "\""
    }

    /// JSON text for a random number: integers up to 19 digits (Int64), decimals with up to 17
    /// significant digits and exponents Double can hold.
    private func number(_ generator: inout Generator) -> String {
        var text = generator.below(3) == 0 ? "-" : ""
        let digits = 1 + generator.below(generator.below(4) == 0 ? 18 : 6)
        text += String(1 + generator.below(9)) + (1..<digits).map { _ in String(generator.below(10)) }.joined()
        if generator.below(20) == 0 { text = text.hasPrefix("-") ? "-0" : "0" }
        if generator.below(2) == 0 {
            text += "." + (0...generator.below(8)).map { _ in String(generator.below(10)) }.joined()
        }
        if generator.below(3) == 0 {
            text += ["e", "E"][generator.below(2)] + ["", "+", "-"][generator.below(3)] + String(generator.below(40))
        }
        return text
    }

    /// Random white space between tokens.
    private func space(_ generator: inout Generator) -> String {
        [" ", "", "", "\n", "\t", "\r\n  "][generator.below(6)]
    }

    /// JSON text for a random value of at most `depth` more levels.
    private func value(_ generator: inout Generator, depth: Int) -> String {
        let kind = depth == 0 ? generator.below(5) : generator.below(7)
        switch kind {
        case 0: return ["null", "true", "false"][generator.below(3)]
        case 1, 2: return number(&generator)
        case 3, 4: return string(&generator)
        case 5:
            let elements = (0..<generator.below(5)).map { _ in space(&generator) + value(&generator, depth: depth - 1) }
            return "[" + elements.joined(separator: ",") + space(&generator) + "]"
        default:
            var keys = Set<String>()
            var members: [String] = []
            for _ in 0..<generator.below(5) {
                let key = string(&generator)
                // Duplicate keys are invalid for our parser (Foundation keeps the last one).
                guard let decoded = try? JSONValue(parsing: Array(key.utf8)).stringValue, keys.insert(decoded).inserted
                else { continue }
                members.append(key + space(&generator) + ":" + space(&generator) + value(&generator, depth: depth - 1))
            }
            return "{" + members.map { space(&generator) + $0 }.joined(separator: ",") + space(&generator) + "}"
        }
    }

    /// Fails unless `ours` is the value Foundation read, numbers compared exactly.
    private func assertSame(
        _ ours: JSONValue, _ theirs: Any, _ context: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        switch ours {
        case .null:
            XCTAssertTrue(theirs is NSNull, "null vs \(theirs) in \(context)", file: file, line: line)
        case .bool(let bool):
            XCTAssertEqual(theirs as? Bool, bool, "bool in \(context)", file: file, line: line)
        case .string(let string):
            XCTAssertEqual(theirs as? String, string, "string in \(context)", file: file, line: line)
        case .number(let number):
            guard let foundation = theirs as? NSNumber else {
                return XCTFail("number vs \(theirs) in \(context)", file: file, line: line)
            }
            let type = String(cString: foundation.objCType)
            if type != "d" && type != "f" {
                // Foundation read an integer: ours must be that exact integer.
                XCTAssertEqual(
                    number.int64Value, foundation.int64Value, "integer \(number) in \(context)", file: file, line: line)
            } else {
                // swift-corelibs-foundation does not round correctly: past 15 significant digits
                // or with an exponent it can be a few ulps off (-85593.05167122E19 reads as
                // -8.559305167121998e+23, not -8.559305167122e+23). Ours is the correctly rounded
                // `Double(text)`; Foundation's must be within 8 ulps of it.
                XCTAssertEqual(
                    number.doubleValue, Double(number.description), "\(number) in \(context)", file: file, line: line)
                let tolerance = 8 * max(number.doubleValue.ulp, foundation.doubleValue.ulp)
                XCTAssertLessThanOrEqual(
                    abs(number.doubleValue - foundation.doubleValue), tolerance, "number \(number) in \(context)",
                    file: file, line: line)
            }
        case .array(let elements):
            guard let array = theirs as? [Any], array.count == elements.count else {
                return XCTFail("array vs \(theirs) in \(context)", file: file, line: line)
            }
            for (element, other) in zip(elements, array) { assertSame(element, other, context, file: file, line: line) }
        case .object(let members):
            guard let object = theirs as? [String: Any], object.count == members.count else {
                return XCTFail("object vs \(theirs) in \(context)", file: file, line: line)
            }
            for (key, member) in members {
                guard let other = object[key] else {
                    return XCTFail("missing key in \(context)", file: file, line: line)
                }
                assertSame(member, other, context, file: file, line: line)
            }
        }
    }

    /// 2000 generated documents: both parsers accept each, and read the same values.
    func testParserAgreesWithJSONSerialization() throws {
        for seed in UInt64(1)...2000 {
            var generator = Generator(state: seed)
            let text = space(&generator) + value(&generator, depth: 4) + space(&generator)
            let context = "seed \(seed): \(text)"
            let ours: JSONValue
            do {
                ours = try JSONValue(parsing: Array(text.utf8))
            } catch {
                XCTFail("our parser rejected \(context): \(error)")
                continue
            }
            guard let theirs = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            else {
                XCTFail("JSONSerialization rejected \(context)")
                continue
            }
            assertSame(ours, theirs, context)
            XCTAssertEqual(try JSONValue(parsing: ours.canonicalBytes), ours, context)
        }
    }

    /// Numbers are exact where Foundation's are not: every digit of long integers and decimals
    /// survives, compared with `Decimal` (38 significant digits).
    func testNumbersAreExact() throws {
        var generator = Generator(state: 77)
        for _ in 0..<2000 {
            let digits = (0..<(1 + generator.below(30))).map { _ in String(generator.below(10)) }.joined()
            let fraction = (0..<generator.below(8)).map { _ in String(generator.below(10)) }.joined()
            let text = (generator.below(2) == 0 ? "-" : "") + "1" + digits + (fraction.isEmpty ? "" : "." + fraction)
            guard case .number(let number) = try JSONValue(parsing: Array(text.utf8)) else {
                return XCTFail("\(text) is not a number")
            }
            XCTAssertEqual(number.decimalValue, Decimal(string: text), text)
            XCTAssertEqual(number, JSONNumber(number.description), text)
            XCTAssertEqual(number.doubleValue, Double(text), text)
        }
        // Correct rounding where Foundation's reader is off (see `assertSame`), checked against
        // values computed with correctly rounded conversion (CPython's float()).
        let rounded: [(String, Double)] = [
            ("-85593.05167122E19", -8.559305167122e+23), ("7926049493864.8299879E22", 7.92604949386483e+34),
            ("-9.7794491390233736e-12", -9.779449139023374e-12), ("1994621.8664020E-37", 1.994621866402e-31),
            ("-96213335420.16978535", -96213335420.16978),
        ]
        for (text, expected) in rounded {
            XCTAssertEqual(try JSONValue(parsing: Array(text.utf8)).jsonNumberValue?.doubleValue, expected, text)
        }
    }
}
