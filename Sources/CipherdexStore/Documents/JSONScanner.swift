import Foundation

/// The validator's pass over the bytes (see `JSONValidator`): the same grammar, checks and error
/// offsets as `JSONParser` with `JSONLexer`, in one loop with an explicit stack of containers.
/// The offset being read is a local of `run` handed `inout` to inlined helpers, so that it stays
/// in a register.
struct JSONScanner<Names: MemberNameChecking> {
    private let base: UnsafePointer<UInt8>
    private let count: Int
    /// Whether each open container is an object (true) or an array.
    private let openObjects: UnsafeMutablePointer<Bool>
    private(set) var names: Names
    /// Which names with other characters than ASCII are plain too.
    private var composedNames = ComposedNameCheck()

    init(base: UnsafePointer<UInt8>, count: Int, openObjects: UnsafeMutablePointer<Bool>, names: Names) {
        self.base = base
        self.count = count
        self.openObjects = openObjects
        self.names = names
    }

    /// The error for `reason` at `offset` (out of line: only the failing path builds text).
    @inline(never)
    private static func failure(_ reason: String, at offset: Int) -> DocumentError {
        .invalidJSON(reason: "\(reason) at byte \(offset)")
    }

    mutating func run() throws {
        let base = base
        let count = count
        var index = 0
        var depth = 0
        Self.skipWhitespace(base, count, &index)
        nextValue: while true {
            // A value, or the start of a container up to its first value.
            guard index < count else { throw Self.failure("unexpected end of input", at: index) }
            switch base[index] {
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try Self.scanNumber(base, count, &index)
            case UInt8(ascii: "\""):
                _ = try Self.scanString(base, count, &index)
            case UInt8(ascii: "{"):
                try openContainer(isObject: true, &depth, &index)
                if index < count, base[index] == UInt8(ascii: "}") {
                    index += 1
                    closeContainer(&depth)
                } else {
                    try readMemberName(&index)
                    continue nextValue
                }
            case UInt8(ascii: "["):
                try openContainer(isObject: false, &depth, &index)
                while index < count, base[index] == UInt8(ascii: "[") {
                    try openContainer(isObject: false, &depth, &index)
                }
                if index < count, base[index] == UInt8(ascii: "]") {
                    index += 1
                    closeContainer(&depth)
                } else {
                    continue nextValue
                }
            case UInt8(ascii: "t"):
                try Self.expectLiteral("true", base, count, &index)
            case UInt8(ascii: "f"):
                try Self.expectLiteral("false", base, count, &index)
            case UInt8(ascii: "n"):
                try Self.expectLiteral("null", base, count, &index)
            default:
                throw Self.failure("unexpected character", at: index)
            }
            // A value ended (or a container opened and closed): close what the text closes.
            closing: while true {
                guard depth > 0 else {
                    Self.skipWhitespace(base, count, &index)
                    guard index >= count else { throw Self.failure("unexpected content after the value", at: index) }
                    return
                }
                let isObject = openObjects[depth - 1]
                if isObject { try names.finishMember() }
                Self.skipWhitespace(base, count, &index)
                guard index < count else { throw Self.failure("unexpected end of input", at: index) }
                let byte = base[index]
                if byte == UInt8(ascii: ",") {
                    index += 1
                    if !isObject, index < count, Self.isDigit(base[index]) {
                        // A run of numbers in an array (`1,2,3`): read without the general dispatch.
                        repeat {
                            try Self.scanNumber(base, count, &index)
                            guard index < count, base[index] == UInt8(ascii: ",") else { continue closing }
                            index += 1
                        } while index < count && Self.isDigit(base[index])
                    }
                    Self.skipWhitespace(base, count, &index)
                    if isObject { try readMemberName(&index) }
                    continue nextValue
                }
                if isObject {
                    guard byte == UInt8(ascii: "}") else { throw Self.failure("expected ',' or '}'", at: index) }
                } else {
                    guard byte == UInt8(ascii: "]") else { throw Self.failure("expected ',' or ']'", at: index) }
                }
                index += 1
                closeContainer(&depth)
                // `]]]`: arrays closing arrays, nothing to check in between.
                while depth > 0, !openObjects[depth - 1], index < count, base[index] == UInt8(ascii: "]") {
                    index += 1
                    depth -= 1
                }
            }
        }
    }

    /// Skips spaces, tabs, line feeds and carriage returns.
    @inline(__always)
    private static func skipWhitespace(_ base: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int) {
        while index < count {
            let byte = base[index]
            guard byte <= 0x20, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index &+= 1
        }
    }

    @inline(__always)
    private mutating func openContainer(isObject: Bool, _ depth: inout Int, _ index: inout Int) throws {
        guard depth < JSONValue.maximumDepth else {
            throw Self.failure("nesting deeper than \(JSONValue.maximumDepth)", at: index)
        }
        openObjects[depth] = isObject
        depth += 1
        if isObject { names.openObject() }
        index += 1
        Self.skipWhitespace(base, count, &index)
    }

    @inline(__always)
    private mutating func closeContainer(_ depth: inout Int) {
        depth -= 1
        if openObjects[depth] { names.closeObject() }
    }

    /// Reads `"name"` and `:` up to the member's value.
    @inline(__always)
    private mutating func readMemberName(_ index: inout Int) throws {
        guard index < count, base[index] == UInt8(ascii: "\"") else {
            throw Self.failure("expected a member name", at: index)
        }
        let offset = index
        var plain = try Self.scanString(base, count, &index)
        let content = UnsafeBufferPointer(start: base + offset + 1, count: index - offset - 2)
        // Not ASCII, or escaped: plain still when it is its one spelling (`ComposedNameCheck`).
        if !plain { plain = composedNames.isPlain(content) }
        try names.readName(at: offset, content: content, plain: plain)
        Self.skipWhitespace(base, count, &index)
        guard index < count, base[index] == UInt8(ascii: ":") else { throw Self.failure("expected ':'", at: index) }
        index += 1
        Self.skipWhitespace(base, count, &index)
    }

    /// Reads `literal` (`true`, `false` or `null`) at the current offset.
    @inline(__always)
    private static func expectLiteral(
        _ literal: StaticString, _ base: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int
    ) throws {
        let length = literal.utf8CodeUnitCount
        guard index + length <= count, memcmp(base + index, literal.utf8Start, length) == 0 else {
            throw failure("invalid literal", at: index)
        }
        index += length
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    @inline(__always)
    private static func skipDigits(_ base: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int) {
        while index < count, isDigit(base[index]) { index &+= 1 }
    }

    /// Reads a number (the current byte is `-` or a digit) as `JSONLexer.skipNumber` does: the
    /// same grammar, and an exponent refused when the value it scales to is out of range.
    @inline(__always)
    private static func scanNumber(_ base: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int) throws {
        let start = index
        if base[index] == UInt8(ascii: "-") {
            index &+= 1
            guard index < count else { throw failure("invalid number", at: index) }
        }
        let integerStart = index
        let first = base[index]
        index &+= 1
        if first != UInt8(ascii: "0") {
            guard isDigit(first) else { throw failure("invalid number", at: index &- 1) }
            skipDigits(base, count, &index)
        }
        guard index < count else { return }
        let byte = base[index]
        // The common case: an integer, followed by `,`, `]`, `}` or whitespace.
        guard byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e") else { return }
        try scanNumberTail(base, count, &index, start: start, integerStart: integerStart)
    }

    /// Reads the fraction and exponent of a number whose integer part ends at `index`.
    private static func scanNumberTail(
        _ base: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int, start: Int, integerStart: Int
    ) throws {
        let integerEnd = index
        var fractionStart = index
        var byte = base[index]
        if byte == UInt8(ascii: ".") {
            index += 1
            fractionStart = index
            skipDigits(base, count, &index)
            guard index > fractionStart else { throw failure("invalid number", at: index) }
            guard index < count else { return }
            byte = base[index]
        }
        let fractionEnd = index
        guard byte | 0x20 == UInt8(ascii: "e") else { return }
        index += 1
        var isNegativeExponent = false
        if index < count, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") {
            isNegativeExponent = base[index] == UInt8(ascii: "-")
            index += 1
        }
        let exponentStart = index
        skipDigits(base, count, &index)
        guard index > exponentStart else { throw failure("invalid number", at: index) }
        var magnitude = 0  // saturates at Int.max, which is out of range
        for position in exponentStart..<index {
            let (shifted, overflowA) = magnitude.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = shifted.addingReportingOverflow(Int(base[position] &- UInt8(ascii: "0")))
            magnitude = overflowA || overflowB ? Int.max : next
        }
        // Fraction digits move the exponent by at most their count: within that, no check.
        let fractionCount = fractionEnd - fractionStart
        if magnitude <= JSONNumber.exponentLimit, fractionCount <= JSONNumber.exponentLimit - magnitude { return }
        let value = JSONNumber.normalize(
            integer: UnsafeBufferPointer(start: base + integerStart, count: integerEnd - integerStart),
            fraction: UnsafeBufferPointer(start: base + fractionStart, count: fractionCount),
            exponent: isNegativeExponent ? -magnitude : magnitude)
        if case .outOfRange = value { throw failure("number exponent out of range", at: start) }
    }

    /// Reads a string (the current byte is its opening quote) as `JSONLexer.scanString` does,
    /// without decoding it: returns whether it is plain (ASCII without escapes). Its content is
    /// checked to be UTF-8 as it is read; that error is thrown at the closing quote, as the
    /// lexer's, so any other fault of the string comes first.
    @inline(__always)
    private static func scanString(_ base: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int) throws -> Bool {
        index &+= 1  // the opening quote
        let start = index
        var plain = true
        var validUTF8 = true
        while true {
            // Eight bytes at a time while none is a quote, a backslash, a control or non-ASCII.
            while index &+ 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let special = specialBytes(word)
                if special == 0 {
                    index &+= 8
                } else {
                    index &+= special.trailingZeroBitCount &>> 3
                    break
                }
            }
            guard index < count else { throw failure("unterminated string", at: index) }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                guard validUTF8 else { throw failure("invalid UTF-8 in the string", at: start) }
                index &+= 1
                return plain
            }
            if byte == UInt8(ascii: "\\") {
                plain = false
                try scanEscape(base, count, &index)
            } else if byte < 0x20 {
                throw failure("unescaped control character in a string", at: index)
            } else if byte < 0x80 {
                index &+= 1
            } else {
                plain = false
                if !scanUTF8Sequence(base, count, &index) {
                    validUTF8 = false
                    index &+= 1
                }
            }
        }
    }

    /// The high bit of each byte of `word` that is `"`, `\`, below 0x20 or above 0x7F, maybe
    /// with others above the lowest (only the lowest is exact).
    @inline(__always)
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let zeroQuote = (quotes &- ones) & ~quotes
        let zeroBackslash = (backslashes &- ones) & ~backslashes
        let control = word &- (ones &* 0x20)
        return (zeroQuote | zeroBackslash | control | word) & highBits
    }

    /// Reads one well-formed UTF-8 sequence of two to four bytes (Unicode's table 3-7) at the
    /// current offset, a byte above 0x7F; false, reading nothing, when there is none. Its
    /// continuation bytes are never a quote, backslash or control byte, so it lies within the
    /// string.
    private static func scanUTF8Sequence(_ base: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int) -> Bool {
        let length = JSONLexer.utf8SequenceLength(base, index, count)
        guard length > 0 else { return false }
        index += length
        return true
    }

    /// Reads an escape (the current byte is its backslash) as `JSONLexer.scanString` does.
    private static func scanEscape(_ base: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int) throws {
        index += 1
        guard index < count else { throw failure("unterminated string", at: index) }
        let escape = base[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return
        case UInt8(ascii: "u"):
            let scalar = try scanHex4(base, count, &index)
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < count, base[index] == UInt8(ascii: "\\"), base[index + 1] == UInt8(ascii: "u")
                else { throw failure("lone surrogate escape", at: index) }
                index += 2
                let low = try scanHex4(base, count, &index)
                guard (0xDC00...0xDFFF).contains(low) else { throw failure("lone surrogate escape", at: index) }
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw failure("lone surrogate escape", at: index)
            }
        default:
            throw failure("invalid escape", at: index)
        }
    }

    private static func scanHex4(_ base: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int) throws -> UInt32 {
        guard index + 4 <= count else { throw failure("invalid \\u escape", at: index) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = base[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape", at: index)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
