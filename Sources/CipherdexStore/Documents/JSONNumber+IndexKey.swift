extension JSONNumber {
    /// Most significant digits kept in an index key; longer numbers are truncated (the key stays
    /// monotone, and candidates are re-checked exactly).
    static let indexDigitLimit = 64

    /// An order-preserving payload for index keys, compared with `memcmp` then length, that
    /// orders numbers by exact value:
    ///
    /// - a class byte: 0x01 negative, 0x02 zero, 0x03 positive;
    /// - positive: the decimal point position as 8 big-endian bytes (sign bit flipped), then the
    ///   significant digits as ASCII (at most `indexDigitLimit`);
    /// - negative: the same with the position negated and each digit `d` written as `9 - d`,
    ///   then 0xFF, so a longer magnitude with the same leading digits sorts first;
    /// - zero: nothing more.
    var indexKeyPayload: [UInt8] {
        switch signum {
        case 0:
            return [0x02]
        case 1:
            var payload: [UInt8] = [0x03]
            Self.appendOrdered(Int64(pointPosition), to: &payload)
            payload.append(contentsOf: digits.prefix(Self.indexDigitLimit))
            return payload
        default:
            var payload: [UInt8] = [0x01]
            Self.appendOrdered(-Int64(pointPosition), to: &payload)
            payload.append(
                contentsOf: digits.prefix(Self.indexDigitLimit).map { UInt8(ascii: "9") - $0 + UInt8(ascii: "0") })
            payload.append(0xFF)
            return payload
        }
    }

    /// Appends `value` as 8 big-endian bytes with the sign bit flipped (so they sort as integers).
    private static func appendOrdered(_ value: Int64, to payload: inout [UInt8]) {
        let ordered = UInt64(bitPattern: value) ^ (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) {
            payload.append(UInt8(truncatingIfNeeded: ordered >> UInt64(shift)))
        }
    }
}
