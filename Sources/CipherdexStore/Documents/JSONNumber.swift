import Foundation

/// A JSON number kept exactly as written: any number of digits, any exponent JSON allows.
///
/// The value is `±digits × 10^exponent`, normalised (no leading or trailing zero digit, zero has
/// no sign), so `100`, `1e2` and `100.0` are one number and `-0` equals `0`. Equality, hashing,
/// the order (`<`, `compare`) and the canonical text (`description`) all use the exact decimal
/// value: `9007199254740993` differs from `9007199254740992`, and `1e-400` is not zero.
///
/// Conversions: `int64Value` and `uint64Value` are exact or nil; `decimalValue` is exact or nil;
/// `doubleValue` is the nearest double (±infinity or ±0 beyond the double range).
public struct JSONNumber: Sendable, Hashable {
    /// Whether the number is below zero (never true for zero).
    public let isNegative: Bool
    /// The significant decimal digits as ASCII bytes: no leading or trailing `0`; empty for zero.
    let digits: [UInt8]
    /// The power of ten the digits are scaled by.
    let exponent: Int

    /// Zero.
    public static let zero = JSONNumber(isNegative: false, digits: [], exponent: 0)

    /// Largest exponent magnitude accepted, so digit positions never overflow `Int`.
    static let exponentLimit = Int.max / 4

    private init(isNegative: Bool, digits: [UInt8], exponent: Int) {
        self.isNegative = isNegative
        self.digits = digits
        self.exponent = exponent
    }

    /// Normalises `±(integer digits . fraction digits) × 10^exponent`; nil when the exponent is
    /// too large to track (beyond ±`exponentLimit`).
    init?(isNegative: Bool, integerDigits: ArraySlice<UInt8>, fractionDigits: ArraySlice<UInt8>, exponent: Int) {
        var digits = Array(integerDigits.drop { $0 == UInt8(ascii: "0") })
        if digits.isEmpty {
            digits = Array(fractionDigits.drop { $0 == UInt8(ascii: "0") })
        } else {
            digits.append(contentsOf: fractionDigits)
        }
        guard let last = digits.lastIndex(where: { $0 != UInt8(ascii: "0") }) else {
            self = .zero
            return
        }
        guard abs(exponent) <= Self.exponentLimit else { return nil }
        let trailingZeros = digits.count - 1 - last
        digits.removeLast(trailingZeros)
        let scaled = exponent - fractionDigits.count + trailingZeros
        guard abs(scaled) <= Self.exponentLimit else { return nil }
        self.init(isNegative: isNegative, digits: digits, exponent: scaled)
    }

    /// The number written as JSON number text (`-12.5e3`, no surrounding whitespace); nil when
    /// the text is not one.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, let last = bytes.last,
            first == UInt8(ascii: "-") || JSONNumber.isDigit(first), JSONNumber.isDigit(last),
            case .number(let number)? = try? JSONValue(parsing: bytes)
        else { return nil }
        self = number
    }

    /// The integer, exactly.
    public init(_ value: Int) {
        self.init(Int64(value))
    }

    /// The integer, exactly.
    public init(_ value: Int64) {
        self.init(magnitude: value.magnitude, isNegative: value < 0)
    }

    /// The integer, exactly.
    public init(_ value: UInt64) {
        self.init(magnitude: value, isNegative: false)
    }

    private init(magnitude: UInt64, isNegative: Bool) {
        self.init(
            isNegative: isNegative, integerDigits: Array(String(magnitude).utf8)[...], fractionDigits: [],
            exponent: 0)!
    }

    /// The double's shortest round-trip decimal value (`0.1` is `0.1`); nil when it is not finite.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == 0 {
            self = .zero
            return
        }
        guard let number = JSONNumber(value.description) else { return nil }
        self = number
    }

    /// The decimal's exact value; nil for NaN.
    public init?(_ value: Decimal) {
        guard !value.isNaN, let number = JSONNumber(value.description) else { return nil }
        self = number
    }

    /// Whether the number is an integer (no fractional part).
    public var isInteger: Bool { exponent >= 0 }

    /// The number as an `Int64`, when it is an integer in that range.
    public var int64Value: Int64? {
        guard let magnitude = integerMagnitude else { return nil }
        if isNegative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return Int64(bitPattern: 0 &- magnitude)
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The number as a `UInt64`, when it is a non-negative integer in that range.
    public var uint64Value: UInt64? {
        isNegative ? nil : integerMagnitude
    }

    /// The nearest double; ±infinity above the double range, ±0 below it.
    public var doubleValue: Double {
        Double(description) ?? (isNegative ? -.infinity : .infinity)
    }

    /// The number as a `Decimal`, when `Decimal` holds it exactly (38 digits, exponent -128...127).
    public var decimalValue: Decimal? {
        guard digits.count <= 38,
            let decimal = Decimal(string: description, locale: Locale(identifier: "en_US_POSIX")),
            JSONNumber(decimal) == self
        else { return nil }
        return decimal
    }

    /// The magnitude as a `UInt64`, when the number is an integer of at most 20 digits that fits.
    private var integerMagnitude: UInt64? {
        guard exponent >= 0, digits.count + exponent <= 20 else { return nil }
        var value: UInt64 = 0
        for digit in digits + Array(repeating: UInt8(ascii: "0"), count: exponent) {
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = shifted.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            value = next
        }
        return value
    }

    /// Whether the byte is an ASCII decimal digit.
    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Position of the decimal point relative to the first digit: the magnitude lies in
    /// `[10^(pointPosition-1), 10^pointPosition)`.
    var pointPosition: Int { digits.count + exponent }
}

extension JSONNumber: Comparable {
    /// Exact comparison of the decimal values: negative, zero or positive as `lhs` is less than,
    /// equal to or greater than `rhs`.
    public static func compare(_ lhs: JSONNumber, _ rhs: JSONNumber) -> Int {
        let lhsSign = lhs.signum
        let rhsSign = rhs.signum
        if lhsSign != rhsSign { return lhsSign < rhsSign ? -1 : 1 }
        if lhsSign == 0 { return 0 }
        let magnitudeOrder = compareMagnitudes(lhs, rhs)
        return lhsSign > 0 ? magnitudeOrder : -magnitudeOrder
    }

    /// `compare(lhs, rhs) < 0`.
    public static func < (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// -1, 0 or 1.
    var signum: Int { digits.isEmpty ? 0 : (isNegative ? -1 : 1) }

    private static func compareMagnitudes(_ lhs: JSONNumber, _ rhs: JSONNumber) -> Int {
        if lhs.pointPosition != rhs.pointPosition { return lhs.pointPosition < rhs.pointPosition ? -1 : 1 }
        // Same scale: the digit strings compare like decimal fractions, a prefix first.
        for (a, b) in zip(lhs.digits, rhs.digits) where a != b {
            return a < b ? -1 : 1
        }
        return lhs.digits.count == rhs.digits.count ? 0 : (lhs.digits.count < rhs.digits.count ? -1 : 1)
    }
}

extension JSONNumber: CustomStringConvertible, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// The canonical JSON text: `0` for zero; plain digits (`12345678901234567890`, `0.001`,
    /// `3.25`) when that needs no padding zeros or the point lies within -6...21 of the first
    /// digit; otherwise scientific, `d[.ddd]e±x` without a `+` (`1e400`, `-1.5e-400`).
    public var description: String {
        if digits.isEmpty { return "0" }
        var text = isNegative ? "-" : ""
        let digitText = String(decoding: digits, as: UTF8.self)
        let point = pointPosition
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

    /// The integer literal, exactly.
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// The float literal's shortest round-trip decimal value (float literals are finite).
    public init(floatLiteral value: Double) {
        guard let number = JSONNumber(value) else { preconditionFailure("a float literal is finite") }
        self = number
    }
}
