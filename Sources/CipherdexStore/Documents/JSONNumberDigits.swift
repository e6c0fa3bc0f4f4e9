/// The digits of a `JSONNumber` too long (more than `JSONNumber.inlineDigitLimit` significant
/// digits) or too far from 1 (an exponent beyond `Int32`) to be kept inline: one heap object,
/// shared by copies of the number.
final class JSONNumberDigits: Sendable {
    /// Whether the number is below zero.
    let isNegative: Bool
    /// The significant decimal digits as ASCII bytes: no leading or trailing `0`, never empty.
    let digits: [UInt8]
    /// The power of ten the digits are scaled by.
    let exponent: Int

    init(isNegative: Bool, digits: [UInt8], exponent: Int) {
        self.isNegative = isNegative
        self.digits = digits
        self.exponent = exponent
    }
}
