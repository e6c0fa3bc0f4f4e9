import Foundation

extension JSONValue {
    /// Parses strict JSON (RFC 8259) from UTF-8 bytes.
    ///
    /// Numbers are kept exactly (see `JSONNumber`), whatever their size or exponent. Rejects,
    /// with `DocumentError.invalidJSON`: malformed syntax, invalid UTF-8, lone surrogate escapes,
    /// an exponent beyond ±`JSONNumber.exponentLimit` (about 2.3 × 10^18), duplicate object
    /// keys (or two names of one object that differ only in Unicode form, see `JSONValue`), nesting deeper than `maximumDepth` and trailing content. Error reasons name the problem and a byte
    /// offset, never the text of the input.
    public init(parsing bytes: [UInt8]) throws {
        var parser = JSONParser(bytes: bytes)
        self = try parser.parseDocument()
    }

    /// Parses strict JSON from UTF-8 data (see `init(parsing:)` for `[UInt8]`).
    public init(parsing data: Data) throws {
        try self.init(parsing: [UInt8](data))
    }

    /// Deepest nesting of arrays and objects the parser accepts.
    public static let maximumDepth = 256
}

/// A recursive-descent JSON parser over a byte array.
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// One value, surrounded by optional whitespace, and nothing else.
    mutating func parseDocument() throws -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected content after the value") }
        return value
    }

    private func failure(_ reason: String) -> DocumentError {
        .invalidJSON(reason: "\(reason) at byte \(index)")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        let matches = literal.withUTF8Buffer { expected in
            index + count <= bytes.count && bytes[index..<(index + count)].elementsEqual(expected)
        }
        guard matches else { throw failure("invalid literal") }
        index += count
    }

    private mutating func enterContainer() throws {
        depth += 1
        guard depth <= JSONValue.maximumDepth else { throw failure("nesting deeper than \(JSONValue.maximumDepth)") }
        index += 1
        skipWhitespace()
    }

    private mutating func parseObject() throws -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var members: [String: JSONValue] = [:]
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a member name")
            }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            if let earlier = members.index(forKey: key) {
                guard members[earlier].key.utf8.elementsEqual(key.utf8) else {
                    throw DocumentError.invalidJSON(
                        reason: "the member name at byte \(keyOffset) is an earlier name of its object in another "
                            + "Unicode form (canonically equivalent): an object holds only one of them")
                }
                throw DocumentError.invalidJSON(reason: "duplicate member name at byte \(keyOffset)")
            }
            members[key] = value
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            } else {
                throw failure("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            } else {
                throw failure("expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws -> JSONNumber {
        let start = index
        func digits() -> Range<Int> {
            let first = index
            while index < bytes.count, JSONNumber.isDigit(bytes[index]) { index += 1 }
            return first..<index
        }
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        guard index < bytes.count else { throw failure("invalid number") }
        let integerDigits: Range<Int>
        if bytes[index] == UInt8(ascii: "0") {
            integerDigits = index..<(index + 1)
            index += 1
        } else {
            integerDigits = digits()
            guard !integerDigits.isEmpty else { throw failure("invalid number") }
        }
        var fractionDigits = index..<index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            fractionDigits = digits()
            guard !fractionDigits.isEmpty else { throw failure("invalid number") }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentSign = 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                if bytes[index] == UInt8(ascii: "-") { exponentSign = -1 }
                index += 1
            }
            let exponentDigits = digits()
            guard !exponentDigits.isEmpty else { throw failure("invalid number") }
            for position in exponentDigits {  // saturates at Int.max, which JSONNumber refuses
                let (shifted, overflowA) = exponent.multipliedReportingOverflow(by: 10)
                let (next, overflowB) = shifted.addingReportingOverflow(Int(bytes[position] - UInt8(ascii: "0")))
                exponent = overflowA || overflowB ? Int.max : next
            }
            exponent *= exponentSign
        }
        guard
            let number = JSONNumber(
                isNegative: isNegative, integerDigits: bytes[integerDigits], fractionDigits: bytes[fractionDigits],
                exponent: exponent)
        else {
            index = start
            throw failure("number exponent out of range")
        }
        return number
    }

    private mutating func parseString() throws -> String {
        index += 1  // the opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = try validatedString(bytes[start..<index], at: start)
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("unescaped control character in a string") }
            index += 1
        }
        var buffer = [UInt8](bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = try validatedString(buffer[...], at: start)
                index += 1
                return string
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
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw failure("lone surrogate escape") }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw failure("lone surrogate escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw failure("lone surrogate escape")
                }
                buffer.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default:
                throw failure("invalid escape")
            }
        }
        throw failure("unterminated string")
    }

    private mutating func parseHex4() throws -> UInt32 {
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

    private func validatedString(_ slice: ArraySlice<UInt8>, at offset: Int) throws -> String {
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw DocumentError.invalidJSON(reason: "invalid UTF-8 in the string at byte \(offset)")
        }
        return string
    }
}
