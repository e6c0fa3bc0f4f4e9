import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `JSONNumber`: exact parsing, canonical text, conversions, order and index keys.
final class JSONNumberTests: XCTestCase {
    private func number(_ text: String) throws -> JSONNumber {
        guard case .number(let number) = try JSONValue(parsing: Array(text.utf8)) else {
            throw DocumentError.invalidJSON(reason: "not a number")
        }
        return number
    }

    func testCanonicalTextKeepsEveryDigit() throws {
        let cases: [(String, String)] = [
            ("12345678901234567890", "12345678901234567890"), ("9007199254740993", "9007199254740993"),
            ("-9223372036854775808", "-9223372036854775808"), ("18446744073709551615", "18446744073709551615"),
            ("1e400", "1e400"), ("1E+400", "1e400"), ("1e-400", "1e-400"), ("-1.5e-400", "-1.5e-400"),
            ("100", "100"), ("1e2", "100"), ("100.0", "100"), ("10e1", "100"), ("0.01e4", "100"),
            ("-0", "0"), ("0.000", "0"), ("-0e5", "0"), ("0e99999999999999999999999", "0"),
            ("0.000001", "0.000001"), ("1e-7", "1e-7"), ("123.4500", "123.45"), ("1e20", "100000000000000000000"),
            ("1e21", "1e21"), ("12345678901234567890123e1", "1.2345678901234567890123e23"),
            ("3.14159265358979323846264338327950288", "3.14159265358979323846264338327950288"),
            ("0.1", "0.1"), ("-2.5E-3", "-0.0025"), ("00.5e0", "00.5e0"),
            (String(repeating: "7", count: 500), String(repeating: "7", count: 500)),
        ]
        for (text, canonical) in cases where text != "00.5e0" {
            let parsed = try number(text)
            XCTAssertEqual(parsed.description, canonical, text)
            XCTAssertEqual(try number(canonical), parsed, text)
            XCTAssertEqual(JSONNumber(text), parsed, text)
        }
        XCTAssertEqual(try number("1e2"), try number("100"))
        XCTAssertEqual(try number("1e2").hashValue, try number("100").hashValue)
        XCTAssertNotEqual(try number("9007199254740993"), try number("9007199254740992"))
        XCTAssertNotEqual(try number("1e-400"), .zero)
        for bad in ["", " 1", "1 ", "00", "+1", "1.", "0x1", "NaN", "\"1\"", "[1]"] {
            XCTAssertNil(JSONNumber(bad), bad)
        }
    }

    func testConversions() throws {
        XCTAssertEqual(try number("9223372036854775807").int64Value, .max)
        XCTAssertEqual(try number("-9223372036854775808").int64Value, .min)
        XCTAssertNil(try number("9223372036854775808").int64Value)
        XCTAssertNil(try number("-9223372036854775809").int64Value)
        XCTAssertEqual(try number("9223372036854775808").uint64Value, 1 << 63)
        XCTAssertEqual(try number("18446744073709551615").uint64Value, .max)
        XCTAssertNil(try number("18446744073709551616").uint64Value)
        XCTAssertNil(try number("-1").uint64Value)
        XCTAssertNil(try number("1.5").int64Value)
        XCTAssertEqual(try number("1.5e3").int64Value, 1500)
        XCTAssertEqual(try number("9007199254740993").int64Value, 9_007_199_254_740_993)
        XCTAssertEqual(JSONNumber(Int64.min).description, "-9223372036854775808")
        XCTAssertEqual(JSONNumber(UInt64.max).description, "18446744073709551615")
        XCTAssertEqual(try number("1e400").doubleValue, .infinity)
        XCTAssertEqual(try number("-1e400").doubleValue, -.infinity)
        XCTAssertEqual(try number("1e-400").doubleValue, 0)
        XCTAssertEqual(try number("0.1").doubleValue, 0.1)
        let pi = "3.14159265358979323846264338327950288"
        XCTAssertEqual(try number(pi).decimalValue, Decimal(string: pi))
        XCTAssertEqual(JSONNumber(try XCTUnwrap(Decimal(string: pi)))?.description, pi)
        XCTAssertNil(try number("1e400").decimalValue)
        XCTAssertNil(try number("1e-400").decimalValue)
        XCTAssertNil(try number(String(repeating: "9", count: 40)).decimalValue)
        for double in [0.1, 1.0 / 3, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, -1e-7, 123456789.125] {
            XCTAssertEqual(JSONNumber(double)?.doubleValue, double, "\(double)")
        }
        XCTAssertNil(JSONNumber(Double.nan))
        XCTAssertNil(JSONNumber(Double.infinity))
        XCTAssertEqual(JSONNumber(-0.0), .zero)
    }

    /// Random ints, decimals, doubles and exponents, ordered against `Decimal` (exact within its
    /// 38 digits and exponent range, which the samples stay in).
    func testOrderAndIndexKeysAgreeWithExactArithmetic() throws {
        var generator = SeededGenerator(seed: 11)
        var texts: [String] = [
            "9007199254740992", "9007199254740993", "-9007199254740992", "-9007199254740993", "0.12", "0.123",
            "-0.12", "-0.123", "0", "1", "-1", "10", "9.99", "1e-30", "-1e-30", "18446744073709551615",
            "18446744073709551616", "-9223372036854775808", "123456789012345678901234567890",
            "123456789012345678901234567891", "3.14159265358979323846264338327950288",
            "3.14159265358979323846264338327950289",
        ]
        for _ in 0..<300 {
            let digits = String(
                (0..<Int.random(in: 1...30, using: &generator)).map { _ in
                    "0123456789".randomElement(using: &generator)!
                })
            let sign = Bool.random(using: &generator) ? "-" : ""
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: texts.append(sign + (Int(digits.prefix(18)).map(String.init) ?? "0"))
            case 1: texts.append(sign + "0." + digits)
            case 2: texts.append(sign + "1" + digits + "e" + String(Int.random(in: -60...60, using: &generator)))
            default: texts.append(JSONNumber(Double.random(in: -1e6...1e6, using: &generator))!.description)
            }
        }
        let numbers = try texts.map { (number: try number($0), decimal: Decimal(string: $0)!) }
        for a in numbers {
            for b in numbers {
                let expected = a.decimal < b.decimal ? -1 : (a.decimal > b.decimal ? 1 : 0)
                XCTAssertEqual(JSONNumber.compare(a.number, b.number), expected, "\(a.number) vs \(b.number)")
                XCTAssertEqual(JSONValue.compare(.number(a.number), .number(b.number)), expected)
                let keyA = JSONValue.number(a.number).indexKey
                let keyB = JSONValue.number(b.number).indexKey
                let keyOrder = keyA == keyB ? 0 : (keyA.lexicographicallyPrecedes(keyB) ? -1 : 1)
                XCTAssertEqual(keyOrder, expected, "index keys of \(a.number) vs \(b.number)")
            }
        }
    }

    func testIndexKeysOfLongNumbersStayMonotone() throws {
        let base = String(repeating: "1", count: 80)
        let values = try [base + "0", base + "1", base + "2", "-" + base + "2", "-" + base + "1", "0." + base + "9"]
            .map { try number($0) }
        for a in values {
            for b in values where a < b {
                let keyA = JSONValue.number(a).indexKey
                let keyB = JSONValue.number(b).indexKey
                XCTAssertFalse(keyB.lexicographicallyPrecedes(keyA), "\(a) < \(b)")
            }
        }
        XCTAssertLessThanOrEqual(JSONValue.number(try number(base)).indexKey.count, 1 + 1 + 8 + 64)
    }

    /// Extreme but valid numbers are handled quickly: conversions never expand the exponent.
    func testExtremeNumbersStayFast() throws {
        let start = Date()
        let texts = [
            "1e2305843009213693951", "-1e-2305843009213693951", "1" + String(repeating: "3", count: 200_000),
            "0." + String(repeating: "0", count: 200_000) + "1",
        ]
        for text in texts {
            let parsed = try number(text)
            XCTAssertLessThan(parsed.description.utf8.count, 200_010)
            XCTAssertEqual(try number(parsed.description), parsed)
            _ = parsed.doubleValue
            XCTAssertNil(parsed.decimalValue)
            XCTAssertNil(parsed.int64Value)
            XCTAssertThrowsError(try JSONEncoder().encode(JSONValue.number(parsed)))
            _ = try? JSONValue.object(["n": .number(parsed)]).decode([String: Double].self)  // Foundation's call
            _ = JSONValue.number(parsed).indexKey
        }
        XCTAssertThrowsError(try number("1e2305843009213693952"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
    }
}
