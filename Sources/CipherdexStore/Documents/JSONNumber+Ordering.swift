extension JSONNumber: Hashable {
    /// Exact equality of the decimal values (`1e2 == 100`, `-0 == 0`).
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.inline(let a, let aExponent, let aNegative), .inline(let b, let bExponent, let bNegative)):
            return a == b && aExponent == bExponent && aNegative == bNegative
        case (.digits(let a), .digits(let b)):
            return a === b || (a.isNegative == b.isNegative && a.exponent == b.exponent && a.digits == b.digits)
        default:
            return false  // each value has one form
        }
    }

    /// Hashes the sign, the significant digits and the exponent, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(isNegative)
        withDigits { digits in
            hasher.combine(digits.count)
            for digit in digits { hasher.combine(digit) }
        }
        hasher.combine(exponent)
    }
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
    var signum: Int {
        switch storage {
        case .inline(let significand, _, let isNegative): return significand == 0 ? 0 : (isNegative ? -1 : 1)
        case .digits(let digits): return digits.isNegative ? -1 : 1
        }
    }

    private static func compareMagnitudes(_ lhs: JSONNumber, _ rhs: JSONNumber) -> Int {
        let lhsCount = lhs.digitCount
        let rhsCount = rhs.digitCount
        let lhsPoint = lhsCount + lhs.exponent
        let rhsPoint = rhsCount + rhs.exponent
        if lhsPoint != rhsPoint { return lhsPoint < rhsPoint ? -1 : 1 }
        if case .inline(var a, _, _) = lhs.storage, case .inline(var b, _, _) = rhs.storage {
            // Same scale: pad the shorter significand to the longer's digit count (at most 19).
            if lhsCount < rhsCount { a *= powersOfTen[rhsCount - lhsCount] }
            if rhsCount < lhsCount { b *= powersOfTen[lhsCount - rhsCount] }
            return a == b ? 0 : (a < b ? -1 : 1)
        }
        // Same scale: the digit strings compare like decimal fractions, a prefix first.
        return lhs.withDigits { lhsDigits in
            rhs.withDigits { rhsDigits in
                for (a, b) in zip(lhsDigits, rhsDigits) where a != b {
                    return a < b ? -1 : 1
                }
                return lhsDigits.count == rhsDigits.count ? 0 : (lhsDigits.count < rhsDigits.count ? -1 : 1)
            }
        }
    }
}
