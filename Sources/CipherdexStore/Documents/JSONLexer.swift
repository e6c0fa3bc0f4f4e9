/// Reads the tokens of JSON text (whitespace, literals, numbers, strings) from UTF-8 bytes, for
/// both `JSONValidator` and `JSONParser`, so the two refuse the same input with the same error.
///
/// Errors are `DocumentError.invalidJSON` naming the problem and a byte offset, never the text.
struct JSONLexer {
    /// The text.
    let bytes: UnsafeBufferPointer<UInt8>
    /// Offset of the next byte to read.
    var index = 0

    /// A string token.
    enum StringToken {
        /// The string had no escape: its content is these bytes of the text (valid UTF-8).
        case raw(UnsafeBufferPointer<UInt8>)
        /// The string had escapes: its content is the decoded buffer (valid UTF-8).
        case decoded
    }

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The error for `reason` at the current offset.
    func failure(_ reason: String) -> DocumentError {
        .invalidJSON(reason: "\(reason) at byte \(index)")
    }

    /// The error for the member name `name` at `offset` that repeats `earlier`, a name of the same
    /// object that a `String` key equals: a duplicate when the bytes are the same, else the same
    /// name in another Unicode form (canonically equivalent), which an object cannot hold twice.
    static func repeatedName(_ name: String, earlier: String, at offset: Int) -> DocumentError {
        guard earlier.utf8.elementsEqual(name.utf8) else {
            return .invalidJSON(
                reason: "the member name at byte \(offset) is an earlier name of its object in another "
                    + "Unicode form (canonically equivalent): an object holds only one of them")
        }
        return .invalidJSON(reason: "duplicate member name at byte \(offset)")
    }

    /// Whether every byte has been read.
    var atEnd: Bool { index >= bytes.count }

    /// Skips spaces, tabs, line feeds and carriage returns.
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Reads `literal` (`true`, `false` or `null`) at the current offset.
    mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        let matches = literal.withUTF8Buffer { expected in
            index + count <= bytes.count && bytes[index..<(index + count)].elementsEqual(expected)
        }
        guard matches else { throw failure("invalid literal") }
        index += count
    }

    /// The parts of a number token.
    struct NumberToken {
        /// Offset of its first byte.
        let start: Int
        let isNegative: Bool
        let integerDigits: Range<Int>
        let fractionDigits: Range<Int>
        /// The exponent as written (saturated at ±`Int.max`, which is out of range).
        let exponent: Int
        /// Whether the token has an exponent part: without one it is always in range.
        let hasExponent: Bool
    }

    /// Reads a number (the current byte is `-` or a digit) as its exact value. Refuses malformed
    /// numbers and exponents beyond ±`JSONNumber.exponentLimit`. An integer of at most 19
    /// digits, the common case, is converted without normalising.
    mutating func scanNumberValue() throws -> JSONNumber {
        let token = try scanNumberToken()
        if token.fractionDigits.isEmpty, !token.hasExponent, token.integerDigits.count <= JSONNumber.inlineDigitLimit {
            var significand: UInt64 = 0
            for position in token.integerDigits {
                significand = significand &* 10 &+ UInt64(bytes[position] &- UInt8(ascii: "0"))
            }
            return JSONNumber(integerSignificand: significand, isNegative: token.isNegative)
        }
        guard case .digits(let head, let tail, let exponent) = try normalize(token) else { return .zero }
        return JSONNumber(isNegative: token.isNegative, head: head, tail: tail, exponent: exponent)
    }

    /// Checks a number (the current byte is `-` or a digit) as `scanNumberValue` does, normalising
    /// it only when it has an exponent (the only way its range can be exceeded).
    mutating func skipNumber() throws {
        let token = try scanNumberToken()
        if token.hasExponent { _ = try normalize(token) }
    }

    private mutating func normalize(_ token: NumberToken) throws -> JSONNumber.Normalized {
        let value = JSONNumber.normalize(
            integer: UnsafeBufferPointer(rebasing: bytes[token.integerDigits]),
            fraction: UnsafeBufferPointer(rebasing: bytes[token.fractionDigits]), exponent: token.exponent)
        if case .outOfRange = value {
            index = token.start
            throw failure("number exponent out of range")
        }
        return value
    }

    private mutating func scanNumberToken() throws -> NumberToken {
        let start = index
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        guard index < bytes.count else { throw failure("invalid number") }
        let integerDigits: Range<Int>
        if bytes[index] == UInt8(ascii: "0") {
            integerDigits = index..<(index + 1)
            index += 1
        } else {
            integerDigits = scanDigits()
            guard !integerDigits.isEmpty else { throw failure("invalid number") }
        }
        var fractionDigits = index..<index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            fractionDigits = scanDigits()
            guard !fractionDigits.isEmpty else { throw failure("invalid number") }
        }
        var exponent = 0
        var hasExponent = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            hasExponent = true
            index += 1
            var exponentSign = 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                if bytes[index] == UInt8(ascii: "-") { exponentSign = -1 }
                index += 1
            }
            let exponentDigits = scanDigits()
            guard !exponentDigits.isEmpty else { throw failure("invalid number") }
            for position in exponentDigits {  // saturates at Int.max, which is out of range
                let (shifted, overflowA) = exponent.multipliedReportingOverflow(by: 10)
                let (next, overflowB) = shifted.addingReportingOverflow(Int(bytes[position] - UInt8(ascii: "0")))
                exponent = overflowA || overflowB ? Int.max : next
            }
            exponent *= exponentSign
        }
        return NumberToken(
            start: start, isNegative: isNegative, integerDigits: integerDigits, fractionDigits: fractionDigits,
            exponent: exponent, hasExponent: hasExponent)
    }

    private mutating func scanDigits() -> Range<Int> {
        let first = index
        while index < bytes.count, JSONNumber.isDigit(bytes[index]) { index += 1 }
        return first..<index
    }

    /// Reads a string (the current byte is its opening quote). Without escapes the content is
    /// returned in place; with escapes it is decoded into `buffer` (emptied first).
    mutating func scanString(decodingInto buffer: inout [UInt8]) throws -> StringToken {
        index += 1  // the opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let content = UnsafeBufferPointer(rebasing: bytes[start..<index])
                try Self.validateUTF8(content, at: start)
                index += 1
                return .raw(content)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("unescaped control character in a string") }
            index += 1
        }
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try buffer.withUnsafeBufferPointer { try Self.validateUTF8($0, at: start) }
                index += 1
                return .decoded
            }
            guard byte >= 0x20 else { throw failure("unescaped control character in a string") }
            if byte != UInt8(ascii: "\\") {
                buffer.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try scanHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw failure("lone surrogate escape") }
                    index += 2
                    let low = try scanHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw failure("lone surrogate escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw failure("lone surrogate escape")
                }
                Self.appendUTF8(scalar, to: &buffer)
            default:
                throw failure("invalid escape")
            }
        }
        throw failure("unterminated string")
    }

    private mutating func scanHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Appends a scalar (not a surrogate) as UTF-8.
    private static func appendUTF8(_ scalar: UInt32, to buffer: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            buffer.append(UInt8(scalar))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | scalar >> 6))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | scalar >> 12))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        default:
            buffer.append(UInt8(0xF0 | scalar >> 18))
            buffer.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Throws unless `content` is well-formed UTF-8 (Unicode's table 3-7: no overlong form, no
    /// surrogate, nothing above U+10FFFF, no truncated sequence).
    static func validateUTF8(_ content: UnsafeBufferPointer<UInt8>, at offset: Int) throws {
        guard isValidUTF8(content) else {
            throw DocumentError.invalidJSON(reason: "invalid UTF-8 in the string at byte \(offset)")
        }
    }

    /// Whether `content` is well-formed UTF-8.
    static func isValidUTF8(_ content: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = content.baseAddress else { return true }
        var position = 0
        let count = content.count
        while position < count {
            if base[position] < 0x80 {
                position += 1
                continue
            }
            let length = utf8SequenceLength(base, position, count)
            guard length > 0 else { return false }
            position += length
        }
        return true
    }

    /// The length of the well-formed UTF-8 sequence of two to four bytes (Unicode's table 3-7:
    /// no overlong form, no surrogate, nothing above U+10FFFF) at `index`, a byte above 0x7F, in
    /// the `count` bytes at `base`; 0 when there is none.
    @inline(__always)
    static func utf8SequenceLength(_ base: UnsafePointer<UInt8>, _ index: Int, _ count: Int) -> Int {
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch base[index] {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, low) = (3, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, high) = (3, 0x9F)
        case 0xF0: (length, low) = (4, 0x90)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, high) = (4, 0x8F)
        default: return 0
        }
        guard index + length <= count, base[index + 1] >= low, base[index + 1] <= high else { return 0 }
        if length > 2 {
            guard base[index + 2] & 0xC0 == 0x80 else { return 0 }
            if length > 3 {
                guard base[index + 3] & 0xC0 == 0x80 else { return 0 }
            }
        }
        return length
    }
}
