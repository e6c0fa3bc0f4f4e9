extension JSONNumber: CustomStringConvertible, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// The canonical JSON text: `0` for zero; plain digits (`12345678901234567890`, `0.001`,
    /// `3.25`) when that needs no padding zeros or the point lies within -6...21 of the first
    /// digit; otherwise scientific, `d[.ddd]e±x` without a `+` (`1e400`, `-1.5e-400`).
    public var description: String {
        var text: [UInt8] = []
        appendCanonicalText(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the canonical text (`description`) as UTF-8 bytes.
    func appendCanonicalText(to output: inout [UInt8]) {
        let exponent = exponent
        withDigits { digits in
            if digits.isEmpty {
                output.append(UInt8(ascii: "0"))
                return
            }
            if isNegative { output.append(UInt8(ascii: "-")) }
            let point = digits.count + exponent
            if exponent >= 0, exponent == 0 || point <= 21 {
                for digit in digits { output.append(digit) }  // faster than append(contentsOf:) for a few bytes
                for _ in 0..<exponent { output.append(UInt8(ascii: "0")) }
            } else if exponent < 0, point > 0 {
                output.append(contentsOf: digits[..<point])
                output.append(UInt8(ascii: "."))
                output.append(contentsOf: digits[point...])
            } else if exponent < 0, point > -6 {
                output.append(contentsOf: "0.".utf8)
                for _ in 0..<(-point) { output.append(UInt8(ascii: "0")) }
                output.append(contentsOf: digits)
            } else {
                output.append(digits[0])
                if digits.count > 1 {
                    output.append(UInt8(ascii: "."))
                    output.append(contentsOf: digits[1...])
                }
                output.append(UInt8(ascii: "e"))
                output.append(contentsOf: String(point - 1).utf8)
            }
        }
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

extension JSONNumber {
    /// What the digits of a number token stand for.
    enum Normalized {
        /// The value is zero (whatever its exponent).
        case zero
        /// The exponent, or the one the digits scale to, lies beyond ±`exponentLimit`.
        case outOfRange
        /// Significant digits `head` then `tail` (the first and last not `0`) times `10^exponent`.
        case digits(head: UnsafeBufferPointer<UInt8>, tail: UnsafeBufferPointer<UInt8>, exponent: Int)
    }

    /// Normalises `integer.fraction × 10^exponent` (ASCII digits, `fraction` possibly empty)
    /// without copying: leading and trailing zero digits are dropped and the exponent scaled.
    static func normalize(
        integer: UnsafeBufferPointer<UInt8>, fraction: UnsafeBufferPointer<UInt8>, exponent: Int
    ) -> Normalized {
        let zero = UInt8(ascii: "0")
        var integerStart = 0
        var integerEnd = integer.count
        while integerStart < integerEnd, integer[integerStart] == zero { integerStart += 1 }
        var fractionStart = 0
        var fractionEnd = fraction.count
        if integerStart == integerEnd {
            while fractionStart < fractionEnd, fraction[fractionStart] == zero { fractionStart += 1 }
        }
        var trailingZeros = 0
        while fractionEnd > fractionStart, fraction[fractionEnd - 1] == zero {
            fractionEnd -= 1
            trailingZeros += 1
        }
        if fractionEnd == fractionStart {
            while integerEnd > integerStart, integer[integerEnd - 1] == zero {
                integerEnd -= 1
                trailingZeros += 1
            }
            if integerEnd == integerStart { return .zero }
        }
        guard abs(exponent) <= exponentLimit else { return .outOfRange }
        let scaled = exponent - fraction.count + trailingZeros
        guard abs(scaled) <= exponentLimit else { return .outOfRange }
        return .digits(
            head: UnsafeBufferPointer(rebasing: integer[integerStart..<integerEnd]),
            tail: UnsafeBufferPointer(rebasing: fraction[fractionStart..<fractionEnd]), exponent: scaled)
    }
}
