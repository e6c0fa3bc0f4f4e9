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
///
/// A number of up to 19 significant digits with an exponent within `Int32` (every `Int64` and
/// almost every number met in practice) is held inline in 16 bytes; only longer ones allocate.
public struct JSONNumber: Sendable {
    /// How the value is held: each value has exactly one form, so equal numbers hold equal storage.
    enum Storage: Sendable {
        /// `±significand × 10^exponent`: at most `inlineDigitLimit` digits, no trailing zero digit
        /// in `significand`; zero is `(0, 0, false)`.
        case inline(significand: UInt64, exponent: Int32, isNegative: Bool)
        /// Every other number (never zero).
        case digits(JSONNumberDigits)
    }

    /// The value.
    let storage: Storage

    /// Zero.
    public static let zero = JSONNumber(storage: .inline(significand: 0, exponent: 0, isNegative: false))

    /// Largest exponent magnitude accepted, so digit positions never overflow `Int`.
    static let exponentLimit = Int.max / 4

    /// Most significant digits held inline (10^19 - 1 < 2^64).
    static let inlineDigitLimit = 19

    /// `10^0 ... 10^19`.
    static let powersOfTen: [UInt64] = (0...19).map { power in (0..<power).reduce(1) { value, _ in value * 10 } }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The number `±(head tail) × 10^exponent`, where `head` followed by `tail` are the
    /// significant digits as ASCII (the first and last not `0`) and `exponent` is within
    /// ±`exponentLimit`.
    init(isNegative: Bool, head: UnsafeBufferPointer<UInt8>, tail: UnsafeBufferPointer<UInt8>, exponent: Int) {
        if head.count + tail.count <= Self.inlineDigitLimit, let inlineExponent = Int32(exactly: exponent) {
            var significand: UInt64 = 0
            for digit in head { significand = significand &* 10 &+ UInt64(digit &- UInt8(ascii: "0")) }
            for digit in tail { significand = significand &* 10 &+ UInt64(digit &- UInt8(ascii: "0")) }
            storage = .inline(significand: significand, exponent: inlineExponent, isNegative: isNegative)
        } else {
            storage = .digits(
                JSONNumberDigits(isNegative: isNegative, digits: Array(head) + Array(tail), exponent: exponent))
        }
    }

    /// The integer `±significand` (at most `inlineDigitLimit` digits).
    init(integerSignificand: UInt64, isNegative: Bool) {
        guard integerSignificand != 0 else {
            self = .zero
            return
        }
        var significand = integerSignificand
        var exponent: Int32 = 0
        while significand % 10 == 0 {
            significand /= 10
            exponent += 1
        }
        storage = .inline(significand: significand, exponent: exponent, isNegative: isNegative)
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
        guard magnitude != 0 else {
            self = .zero
            return
        }
        var significand = magnitude
        var exponent = 0
        while significand % 10 == 0 {
            significand /= 10
            exponent += 1
        }
        self = Array(String(significand).utf8).withUnsafeBufferPointer { digits in
            JSONNumber(
                isNegative: isNegative, head: digits, tail: UnsafeBufferPointer(start: nil, count: 0),
                exponent: exponent)
        }
    }

    /// The double's shortest round-trip decimal value (`0.1` is `0.1`); nil when it is not finite.
    public init?(_ value: Double) {
        self.init(shortestOf: value)
    }

    /// The shortest round-trip decimal value of a binary floating-point `value` (its
    /// `description`); nil when it is not finite.
    init?<Value: BinaryFloatingPoint & CustomStringConvertible>(shortestOf value: Value) {
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

    /// Whether the number is below zero (never true for zero).
    public var isNegative: Bool {
        switch storage {
        case .inline(_, _, let isNegative): return isNegative
        case .digits(let digits): return digits.isNegative
        }
    }

    /// The power of ten the significant digits are scaled by (0 for zero).
    var exponent: Int {
        switch storage {
        case .inline(_, let exponent, _): return Int(exponent)
        case .digits(let digits): return digits.exponent
        }
    }

    /// Number of significant digits (0 for zero).
    var digitCount: Int {
        switch storage {
        case .inline(let significand, _, _):
            var count = 0
            while count < Self.powersOfTen.count, Self.powersOfTen[count] <= significand { count += 1 }
            return count
        case .digits(let digits): return digits.digits.count
        }
    }

    /// The significant decimal digits as ASCII bytes: no leading or trailing `0`; empty for zero.
    var digits: [UInt8] { withDigits { Array($0) } }

    /// Calls `body` with the significant digits as ASCII bytes (empty for zero), without
    /// allocating for an inline number.
    func withDigits<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        switch storage {
        case .digits(let digits):
            return try digits.digits.withUnsafeBufferPointer(body)
        case .inline(let significand, _, _):
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
                var remaining = significand
                var start = buffer.count
                while remaining > 0 {
                    start -= 1
                    buffer[start] = UInt8(ascii: "0") + UInt8(remaining % 10)
                    remaining /= 10
                }
                return try body(UnsafeBufferPointer(rebasing: buffer[start...]))
            }
        }
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
        guard digitCount <= 38,
            let decimal = Decimal(string: description, locale: Locale(identifier: "en_US_POSIX")),
            JSONNumber(decimal) == self
        else { return nil }
        return decimal
    }

    /// The magnitude as a `UInt64`, when the number is an integer of at most 20 digits that fits.
    private var integerMagnitude: UInt64? {
        let exponent = exponent
        guard exponent >= 0, digitCount + exponent <= 20 else { return nil }
        return withDigits { digits -> UInt64? in
            var value: UInt64 = 0
            for position in 0..<(digits.count + exponent) {
                let digit = position < digits.count ? UInt64(digits[position] - UInt8(ascii: "0")) : 0
                let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
                let (next, overflowB) = shifted.addingReportingOverflow(digit)
                guard !overflowA, !overflowB else { return nil }
                value = next
            }
            return value
        }
    }

    /// Whether the byte is an ASCII decimal digit.
    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Position of the decimal point relative to the first digit: the magnitude lies in
    /// `[10^(pointPosition-1), 10^pointPosition)`.
    var pointPosition: Int { digitCount + exponent }
}
