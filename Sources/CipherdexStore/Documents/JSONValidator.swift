/// Checks JSON text without building anything: one iterative pass over the bytes that refuses
/// exactly what `JSONParser` refuses, with the same `DocumentError.invalidJSON` (reason and byte
/// offset), so a malformed document of any size is refused in about the time it takes to read
/// it, before the parser allocates a value for it.
///
/// Its memory is one byte per open container (at most `JSONValue.maximumDepth`) and a reusable
/// buffer for strings with escapes. Duplicate member names are the one error it leaves to the
/// parser, unless `trackingMemberNames` is set: telling them apart needs the decoded names of
/// every open object, which `validate` pays for only to report the first error of a document
/// that is malformed anyway (a duplicate may come before the syntax error the fast pass found).
struct JSONValidator {
    private var lexer: JSONLexer
    private let trackingMemberNames: Bool
    /// Whether each open container is an object (true) or an array.
    private var openObjects: [Bool] = []
    /// For each open object when tracking names: the names of its finished members.
    private var memberNames: [Set<String>] = []
    /// For each open object when tracking names: the name and offset of the member being read.
    private var pendingMembers: [(name: String, offset: Int)] = []
    private var stringBuffer: [UInt8] = []
    /// Whether an object with a second member was read (else no name can repeat).
    private var sawSecondMember = false

    private init(bytes: UnsafeBufferPointer<UInt8>, trackingMemberNames: Bool) {
        lexer = JSONLexer(bytes: bytes)
        self.trackingMemberNames = trackingMemberNames
        openObjects.reserveCapacity(JSONValue.maximumDepth)
    }

    /// Throws the error `JSONParser` would throw for `bytes`, except that a document whose only
    /// fault is a duplicate member name passes (the parser finds those as it builds).
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        var fast = JSONValidator(bytes: bytes, trackingMemberNames: false)
        do {
            try fast.run()
        } catch {
            // Malformed: an earlier duplicate member name is the error the parser would report.
            guard fast.sawSecondMember else { throw error }
            var tracking = JSONValidator(bytes: bytes, trackingMemberNames: true)
            try tracking.run()
            throw error
        }
    }

    private mutating func run() throws {
        lexer.skipWhitespace()
        while true {
            try readValueStart()
            // A value ended (or a container opened and closed): close what the text closes.
            while true {
                guard let isObject = openObjects.last else {
                    lexer.skipWhitespace()
                    guard lexer.atEnd else { throw lexer.failure("unexpected content after the value") }
                    return
                }
                if isObject, trackingMemberNames { try finishMember() }
                lexer.skipWhitespace()
                guard !lexer.atEnd else { throw lexer.failure("unexpected end of input") }
                let byte = lexer.bytes[lexer.index]
                if byte == UInt8(ascii: ",") {
                    lexer.index += 1
                    lexer.skipWhitespace()
                    if isObject {
                        sawSecondMember = true
                        try readMemberName()
                    }
                    break  // read the next value
                }
                guard byte == UInt8(ascii: isObject ? "}" : "]") else {
                    throw lexer.failure(isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
                lexer.index += 1
                closeContainer()
            }
        }
    }

    /// Reads a value; for a container, opens it and reads on to its first scalar value or to
    /// the end of an empty container (which it closes).
    private mutating func readValueStart() throws {
        while true {
            guard !lexer.atEnd else { throw lexer.failure("unexpected end of input") }
            switch lexer.bytes[lexer.index] {
            case UInt8(ascii: "{"):
                try openContainer(isObject: true)
                if !lexer.atEnd, lexer.bytes[lexer.index] == UInt8(ascii: "}") {
                    lexer.index += 1
                    closeContainer()
                    return
                }
                try readMemberName()
            case UInt8(ascii: "["):
                try openContainer(isObject: false)
                if !lexer.atEnd, lexer.bytes[lexer.index] == UInt8(ascii: "]") {
                    lexer.index += 1
                    closeContainer()
                    return
                }
            case UInt8(ascii: "\""):
                _ = try lexer.scanString(decodingInto: &stringBuffer)
                return
            case UInt8(ascii: "t"):
                try lexer.expectLiteral("true")
                return
            case UInt8(ascii: "f"):
                try lexer.expectLiteral("false")
                return
            case UInt8(ascii: "n"):
                try lexer.expectLiteral("null")
                return
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try lexer.skipNumber()
                return
            default:
                throw lexer.failure("unexpected character")
            }
        }
    }

    private mutating func openContainer(isObject: Bool) throws {
        guard openObjects.count < JSONValue.maximumDepth else {
            throw lexer.failure("nesting deeper than \(JSONValue.maximumDepth)")
        }
        openObjects.append(isObject)
        if isObject, trackingMemberNames {
            memberNames.append([])
            pendingMembers.append(("", 0))
        }
        lexer.index += 1
        lexer.skipWhitespace()
    }

    private mutating func closeContainer() {
        if openObjects.removeLast(), trackingMemberNames {
            memberNames.removeLast()
            pendingMembers.removeLast()
        }
    }

    /// Reads `"name"` and `:` up to the member's value.
    private mutating func readMemberName() throws {
        guard !lexer.atEnd, lexer.bytes[lexer.index] == UInt8(ascii: "\"") else {
            throw lexer.failure("expected a member name")
        }
        let offset = lexer.index
        let token = try lexer.scanString(decodingInto: &stringBuffer)
        if trackingMemberNames {
            switch token {
            case .raw(let content):
                pendingMembers[pendingMembers.count - 1] = (String(decoding: content, as: UTF8.self), offset)
            case .decoded:
                pendingMembers[pendingMembers.count - 1] = (String(decoding: stringBuffer, as: UTF8.self), offset)
            }
        }
        lexer.skipWhitespace()
        guard !lexer.atEnd, lexer.bytes[lexer.index] == UInt8(ascii: ":") else { throw lexer.failure("expected ':'") }
        lexer.index += 1
        lexer.skipWhitespace()
    }

    /// Records the name of the member whose value just ended; throws when the object has it.
    private mutating func finishMember() throws {
        let member = pendingMembers[pendingMembers.count - 1]
        let (inserted, earlier) = memberNames[memberNames.count - 1].insert(member.name)
        guard inserted else {
            // The same error as the building parser's (a `Set` of `String`, like its
            // `Dictionary`, holds one of two canonically equivalent names).
            throw JSONLexer.repeatedName(member.name, earlier: earlier, at: member.offset)
        }
    }
}
