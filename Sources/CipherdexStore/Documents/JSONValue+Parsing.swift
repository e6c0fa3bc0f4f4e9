import Foundation

extension JSONValue {
    /// Parses strict JSON (RFC 8259) from UTF-8 bytes.
    ///
    /// Numbers are kept exactly (see `JSONNumber`), whatever their size or exponent. Rejects,
    /// with `DocumentError.invalidJSON`: malformed syntax, invalid UTF-8, lone surrogate escapes,
    /// an exponent beyond ±`JSONNumber.exponentLimit` (about 2.3 × 10^18), duplicate object
    /// keys (or two names of one object that differ only in Unicode form, see `JSONValue`), nesting
    /// deeper than `maximumDepth` and trailing content. Error reasons name the problem and a byte
    /// offset, never the text of the input. The text is checked in full before any value is
    /// built, so malformed input costs one pass over its bytes and no memory for values.
    public init(parsing bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBufferPointer { try JSONValue.parse($0) }
    }

    /// Parses strict JSON from UTF-8 data (see `init(parsing:)` for `[UInt8]`).
    public init(parsing data: Data) throws {
        self = try data.withUnsafeBytes { try JSONValue.parse($0.bindMemory(to: UInt8.self)) }
    }

    /// Deepest nesting of arrays and objects the parser accepts.
    public static let maximumDepth = 256

    /// Validates `bytes` (`JSONValidator`), then builds the value (`JSONParser`).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
        try JSONValidator.validate(bytes)
        var parser = JSONParser(bytes: bytes)
        return try parser.parseDocument()
    }
}

/// A recursive-descent JSON parser over UTF-8 bytes that builds the value. It checks what it
/// reads as it goes (tokens through `JSONLexer`), so it refuses malformed text on its own;
/// `JSONValue.parse` runs `JSONValidator` first so that it only ever builds valid text.
struct JSONParser {
    private var lexer: JSONLexer
    private var depth = 0
    private var stringBuffer: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>) {
        lexer = JSONLexer(bytes: bytes)
    }

    /// One value, surrounded by optional whitespace, and nothing else.
    mutating func parseDocument() throws -> JSONValue {
        lexer.skipWhitespace()
        let value = try parseValue()
        lexer.skipWhitespace()
        guard lexer.atEnd else { throw lexer.failure("unexpected content after the value") }
        return value
    }

    private mutating func parseValue() throws -> JSONValue {
        guard !lexer.atEnd else { throw lexer.failure("unexpected end of input") }
        switch lexer.bytes[lexer.index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try lexer.expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try lexer.expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try lexer.expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try lexer.scanNumberValue())
        default: throw lexer.failure("unexpected character")
        }
    }

    private mutating func parseString() throws -> String {
        switch try lexer.scanString(decodingInto: &stringBuffer) {
        case .raw(let content): return String(decoding: content, as: UTF8.self)
        case .decoded: return String(decoding: stringBuffer, as: UTF8.self)
        }
    }

    private mutating func enterContainer() throws {
        depth += 1
        guard depth <= JSONValue.maximumDepth else {
            throw lexer.failure("nesting deeper than \(JSONValue.maximumDepth)")
        }
        lexer.index += 1
        lexer.skipWhitespace()
    }

    /// Whether the current byte is `byte`.
    private func at(_ byte: UInt8) -> Bool {
        !lexer.atEnd && lexer.bytes[lexer.index] == byte
    }

    private mutating func parseObject() throws -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var members: [String: JSONValue] = [:]
        if at(UInt8(ascii: "}")) {
            lexer.index += 1
            return .object(members)
        }
        while true {
            guard at(UInt8(ascii: "\"")) else { throw lexer.failure("expected a member name") }
            let keyOffset = lexer.index
            let key = try parseString()
            lexer.skipWhitespace()
            guard at(UInt8(ascii: ":")) else { throw lexer.failure("expected ':'") }
            lexer.index += 1
            lexer.skipWhitespace()
            let value = try parseValue()
            if let earlier = members.index(forKey: key) {
                throw JSONLexer.repeatedName(key, earlier: members[earlier].key, at: keyOffset)
            }
            members[key] = value
            lexer.skipWhitespace()
            guard !lexer.atEnd else { throw lexer.failure("unexpected end of input") }
            if at(UInt8(ascii: ",")) {
                lexer.index += 1
                lexer.skipWhitespace()
            } else if at(UInt8(ascii: "}")) {
                lexer.index += 1
                return .object(members)
            } else {
                throw lexer.failure("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        if at(UInt8(ascii: "]")) {
            lexer.index += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            lexer.skipWhitespace()
            guard !lexer.atEnd else { throw lexer.failure("unexpected end of input") }
            if at(UInt8(ascii: ",")) {
                lexer.index += 1
                lexer.skipWhitespace()
            } else if at(UInt8(ascii: "]")) {
                lexer.index += 1
                return .array(elements)
            } else {
                throw lexer.failure("expected ',' or ']'")
            }
        }
    }
}
