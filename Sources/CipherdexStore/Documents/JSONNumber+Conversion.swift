import Foundation

extension JSONNumber {
    /// The number as a `T`, when it is an integer `T` holds; nil for a fraction (`1.5`,
    /// `1.0000000000000000000001`, `1e-400`) or an integer beyond `T`'s range. Never rounded:
    /// `1e2` and `1.0` are integers (100 and 1).
    func exactly<T: FixedWidthInteger>(_ type: T.Type) -> T? {
        let isNegative: Bool
        let digits: [UInt8]
        let exponent: Int
        switch storage {
        case .inline(let significand, let inlineExponent, let negative):
            if significand == 0 { return 0 }
            isNegative = negative
            digits = Array(String(significand).utf8)
            exponent = Int(inlineExponent)
        case .digits(let long):
            (isNegative, digits, exponent) = (long.isNegative, long.digits, long.exponent)
        }
        guard exponent >= 0, !isNegative || T.isSigned else { return nil }
        // A fixed-width integer has at most one decimal digit per 3 bits, plus one.
        guard digits.count + exponent <= T.bitWidth / 3 + 1 else { return nil }
        var value: T = 0
        for position in 0..<(digits.count + exponent) {
            let digit = T(position < digits.count ? digits[position] - UInt8(ascii: "0") : 0)
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) =
                isNegative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { return nil }
            value = next
        }
        return value
    }

    /// The nearest `T` (rounded once, from the exact decimal value); nil when that is infinite
    /// or zero for a number that is not (beyond `T`'s range, either way), as `JSONDecoder`
    /// refuses such numbers.
    func nearest<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) -> T? {
        guard let value = T(description), value.isFinite, (value == 0) == (self == .zero) else { return nil }
        return value
    }

    /// The integer, exactly (of any width: `Int128` too).
    init(integer value: some BinaryInteger) {
        if let small = Int64(exactly: value) {
            self.init(small)
        } else if let large = UInt64(exactly: value) {
            self.init(large)
        } else {
            // Plain digits with no exponent: always a number.
            self = JSONNumber(String(value))!
        }
    }

    /// The float's shortest round-trip decimal value (`0.1` as a `Float` is `0.1`, not the
    /// double `0.100000001490116`); nil when it is not finite.
    init?(float value: Float) {
        self.init(shortestOf: value)
    }
}
