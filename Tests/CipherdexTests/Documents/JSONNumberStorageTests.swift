import Foundation
import XCTest

@testable import CipherdexStore

/// `JSONNumber`'s two forms (inline up to 19 significant digits with an `Int32` exponent, a digit
/// object beyond): every result is the one of the straightforward digit-array representation
/// the type had before (`ReferenceNumber`).
final class JSONNumberStorageTests: XCTestCase {
    private func number(_ text: String) throws -> JSONNumber {
        guard case .number(let number) = try JSONValue(parsing: Array(text.utf8)) else {
            throw DocumentError.invalidJSON(reason: "not a number")
        }
        return number
    }

    private func isInline(_ number: JSONNumber) -> Bool {
        if case .inline = number.storage { return true }
        return false
    }

    /// Asserts that `text` parses to the reference's value in every respect.
    private func assertMatchesReference(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let parsed = try number(text)
        let reference = ReferenceNumber(text)
        XCTAssertEqual(parsed.description, reference.description, text, file: file, line: line)
        XCTAssertEqual(parsed.isNegative, reference.isNegative, text, file: file, line: line)
        XCTAssertEqual(parsed.digits, reference.digits, text, file: file, line: line)
        XCTAssertEqual(parsed.exponent, reference.exponent, text, file: file, line: line)
        XCTAssertEqual(parsed.hashValue, reference.hashValue, text, file: file, line: line)
        XCTAssertEqual(
            isInline(parsed), reference.digits.count <= 19 && Int32(exactly: reference.exponent) != nil, text,
            file: file, line: line)
    }

    func testBoundariesOfTheInlineForm() throws {
        let digits18 = "123456789012345678"
        let digits19 = "1234567890123456789"
        let digits20 = "12345678901234567891"
        let texts = [
            digits18, digits19, digits20, "-" + digits18, "-" + digits19, "-" + digits20, "9999999999999999999",
            "99999999999999999999", "10000000000000000000", "12345678901234567890", "0." + digits19, "0." + digits20,
            "1." + String(digits18.dropFirst()), "1.2345678901234567890", digits19 + "e-30", digits20 + "e30",
            "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
            "-18446744073709551615", "18446744073709551616", "1e2147483647", "1e2147483648", "1e-2147483648",
            "1e-2147483649", "123e2147483645", "123e2147483646", "1.5e-2147483647", "1.5e-2147483648",
            "1e2305843009213693951", "-1e-2305843009213693951", digits20 + "e2305843009213693900", "0", "-0",
            "-0.0e5", "0e-999999999999999999", "5e-324", "1e400",
        ]
        for text in texts { try assertMatchesReference(text) }
        XCTAssertTrue(isInline(try number(digits19)))
        XCTAssertFalse(isInline(try number(digits20)))
        XCTAssertTrue(isInline(try number("10000000000000000000")))  // one significant digit
        XCTAssertTrue(isInline(try number("1e-2147483648")))
        XCTAssertFalse(isInline(try number("1e-2147483649")))
        // The same value reached through either form's neighbours compares and hashes alike.
        XCTAssertEqual(try number("1234567890123456789e1"), try number("12345678901234567890"))
        XCTAssertEqual(try number("12345678901234567890e-1"), try number("1234567890123456789"))
        XCTAssertEqual(try number("10e2147483647"), try number("1e2147483648"))
        XCTAssertLessThan(try number("9999999999999999999"), try number("10000000000000000000"))
        XCTAssertLessThan(try number("9999999999999999999"), try number("9999999999999999999.1"))
        XCTAssertLessThan(try number("-9999999999999999999.1"), try number("-9999999999999999999"))
        XCTAssertLessThan(try number("1e2147483647"), try number("1e2147483648"))
        XCTAssertLessThan(try number("1e-2147483649"), try number("1e-2147483648"))
    }

    func testIntegerLimitsAndNegativeZero() throws {
        XCTAssertEqual(JSONNumber(Int64.max), try number("9223372036854775807"))
        XCTAssertEqual(JSONNumber(Int64.min), try number("-9223372036854775808"))
        XCTAssertEqual(JSONNumber(UInt64.max), try number("18446744073709551615"))
        XCTAssertFalse(isInline(JSONNumber(UInt64.max)))
        XCTAssertEqual(JSONNumber(UInt64.max).uint64Value, .max)
        XCTAssertEqual(JSONNumber(Int64.min).int64Value, .min)
        XCTAssertEqual(JSONNumber(Int64.max).int64Value, .max)
        XCTAssertEqual(JSONNumber(10_000_000_000_000_000_000 as UInt64), try number("1e19"))
        XCTAssertEqual(try number("1e19").uint64Value, 10_000_000_000_000_000_000)
        XCTAssertNil(try number("1e20").uint64Value)
        XCTAssertEqual(JSONNumber(Int64.min).description, "-9223372036854775808")
        for zero in ["-0", "-0.0", "0e5", "-0E-5", "0.000"] {
            let parsed = try number(zero)
            XCTAssertEqual(parsed, .zero, zero)
            XCTAssertEqual(parsed.hashValue, JSONNumber.zero.hashValue, zero)
            XCTAssertFalse(parsed.isNegative, zero)
            XCTAssertEqual(parsed.description, "0", zero)
        }
        XCTAssertEqual(JSONNumber(-0.0), .zero)
        XCTAssertEqual(JSONNumber(0 as Int64), .zero)
    }

    func testValuesStaySmall() {
        XCTAssertLessThanOrEqual(MemoryLayout<JSONNumber>.size, 16)
        XCTAssertLessThanOrEqual(MemoryLayout<JSONValue>.size, 17)
        XCTAssertLessThanOrEqual(MemoryLayout<JSONValue>.stride, 24)
    }

    /// Random numbers of 1 to 45 digits, with fractions, padding zeros and exponents near and far
    /// from the `Int32` edge: description, ==, hash, compare, index keys and conversions agree with
    /// the reference.
    func testRandomNumbersAgreeWithTheReference() throws {
        var generator = SeededGenerator(seed: 97)
        var texts: [String] = []
        for _ in 0..<1_500 {
            let digitCount = Int.random(in: 1...45, using: &generator)
            var digits = String((0..<digitCount).map { _ in "0123456789".randomElement(using: &generator)! })
            if Int.random(in: 0..<3, using: &generator) == 0 {
                digits += String(repeating: "0", count: Int.random(in: 1...25, using: &generator))
            }
            var text = Bool.random(using: &generator) ? "-" : ""
            let split = Int.random(in: 0...digits.count, using: &generator)
            let integerPart = String(digits.prefix(split).drop { $0 == "0" })
            text += integerPart.isEmpty ? "0" : integerPart
            let fractionPart = digits.dropFirst(split)
            if !fractionPart.isEmpty { text += "." + fractionPart }
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: break
            case 1: text += "e" + String(Int.random(in: -40...40, using: &generator))
            case 2: text += "E" + String(Int.random(in: -2_147_483_700...(-2_147_483_600), using: &generator))
            default: text += "e+" + String(Int.random(in: 2_147_483_600...2_147_483_700, using: &generator))
            }
            texts.append(text)
        }
        let pairs = try texts.map { (number: try number($0), reference: ReferenceNumber($0)) }
        for (text, pair) in zip(texts, pairs) {
            try assertMatchesReference(text)
            XCTAssertEqual(pair.number.int64Value, pair.reference.int64Value, text)
            XCTAssertEqual(try number(pair.number.description), pair.number, text)
        }
        for _ in 0..<60_000 {
            let a = pairs.randomElement(using: &generator)!
            let b = Bool.random(using: &generator) ? a : pairs.randomElement(using: &generator)!
            let expected = ReferenceNumber.compare(a.reference, b.reference)
            XCTAssertEqual(JSONNumber.compare(a.number, b.number), expected, "\(a.number) vs \(b.number)")
            XCTAssertEqual(a.number == b.number, a.reference == b.reference, "\(a.number) vs \(b.number)")
            let keyA = JSONValue.number(a.number).indexKey
            let keyB = JSONValue.number(b.number).indexKey
            if expected < 0 { XCTAssertFalse(keyB.lexicographicallyPrecedes(keyA)) }
        }
    }
}

/// The digit-array representation `JSONNumber` had before its inline form: normalised with
/// plain string operations, hashed by its synthesized `Hashable`, ordered digit by digit.
private struct ReferenceNumber: Hashable {
    let isNegative: Bool
    let digits: [UInt8]
    let exponent: Int

    /// Normalises valid JSON number text.
    init(_ text: String) {
        var rest = Substring(text)
        let negative = rest.hasPrefix("-")
        if negative { rest = rest.dropFirst() }
        var exponent = 0
        if let marker = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(rest[rest.index(after: marker)...].replacingOccurrences(of: "+", with: ""))!
            rest = rest[..<marker]
        }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        var all = Array((String(parts[0]) + fraction).utf8)
        exponent -= fraction.utf8.count
        while all.first == UInt8(ascii: "0") { all.removeFirst() }
        while all.last == UInt8(ascii: "0") {
            all.removeLast()
            exponent += 1
        }
        isNegative = negative && !all.isEmpty
        digits = all
        self.exponent = all.isEmpty ? 0 : exponent
    }

    var int64Value: Int64? {
        if digits.isEmpty { return 0 }
        guard exponent >= 0, digits.count + exponent <= 19 else { return nil }
        let text =
            (isNegative ? "-" : "") + String(decoding: digits, as: UTF8.self) + String(repeating: "0", count: exponent)
        return Int64(text)
    }

    static func compare(_ lhs: ReferenceNumber, _ rhs: ReferenceNumber) -> Int {
        let lhsSign = lhs.digits.isEmpty ? 0 : (lhs.isNegative ? -1 : 1)
        let rhsSign = rhs.digits.isEmpty ? 0 : (rhs.isNegative ? -1 : 1)
        if lhsSign != rhsSign { return lhsSign < rhsSign ? -1 : 1 }
        if lhsSign == 0 { return 0 }
        var order = 0
        let lhsPoint = lhs.digits.count + lhs.exponent
        let rhsPoint = rhs.digits.count + rhs.exponent
        if lhsPoint != rhsPoint {
            order = lhsPoint < rhsPoint ? -1 : 1
        } else if let (a, b) = zip(lhs.digits, rhs.digits).first(where: { $0 != $1 }) {
            order = a < b ? -1 : 1
        } else {
            order = lhs.digits.count == rhs.digits.count ? 0 : (lhs.digits.count < rhs.digits.count ? -1 : 1)
        }
        return lhsSign > 0 ? order : -order
    }

    /// The canonical text, as `JSONNumber.description` documents it.
    var description: String {
        if digits.isEmpty { return "0" }
        var text = isNegative ? "-" : ""
        let digitText = String(decoding: digits, as: UTF8.self)
        let point = digits.count + exponent
        if exponent >= 0, exponent == 0 || point <= 21 {
            text += digitText + String(repeating: "0", count: exponent)
        } else if exponent < 0, point > 0 {
            text += digitText.prefix(point) + "." + digitText.dropFirst(point)
        } else if exponent < 0, point > -6 {
            text += "0." + String(repeating: "0", count: -point) + digitText
        } else {
            text += digitText.prefix(1)
            if digits.count > 1 { text += "." + digitText.dropFirst() }
            text += "e" + String(point - 1)
        }
        return text
    }
}
