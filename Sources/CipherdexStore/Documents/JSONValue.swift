/// A JSON value: the content of a document and the operand of a query.
///
/// Numbers are `JSONNumber`s: kept exactly as written (integers of any length, decimals digit
/// for digit, any exponent), compared by exact decimal value. Strings compare and hash by their
/// UTF-8 bytes (no Unicode normalization), so `==`, the ordering and the index keys of a
/// collection always agree. So do object member names, in `==`, the ordering and field paths
/// (`café` written with `é` does not find a member written with `e` and a combining accent),
/// with one limit: the members are a Swift `Dictionary`, whose `String` keys are equal when
/// canonically equivalent, so one object cannot hold two names that differ only in their Unicode
/// form (parsing refuses such an object with `invalidJSON`; a dictionary literal keeps the last).
///
/// Values are totally ordered (see `JSONValue.compare(_:_:)`): null < bool < number < string <
/// array < object. Range predicates and sorting use this order, across types as well.
public enum JSONValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, exact.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object (member order is not significant).
    case object([String: JSONValue])

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The boolean, when this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, exact, when this is one.
    public var jsonNumberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as the nearest double, when this is one. Lossy for integers beyond 2^53 and
    /// for long decimals; use `jsonNumberValue` for the exact value.
    public var numberValue: Double? {
        if case .number(let value) = self { return value.doubleValue }
        return nil
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The value at a dotted path such as `address.city`, or nil when any step is missing.
    ///
    /// Each component names an object member; a component made only of decimal digits also
    /// indexes into an array (`tags.0`). An invalid path (empty, or with an empty component)
    /// yields nil.
    public subscript(path path: String) -> JSONValue? {
        guard let fieldPath = try? FieldPath(path) else { return nil }
        return value(at: fieldPath)
    }

    /// The value at a parsed path.
    func value(at path: FieldPath) -> JSONValue? {
        var current = self
        for component in path.components {
            switch current {
            case .object(let members):
                guard let next = Self.member(component, of: members) else { return nil }
                current = next
            case .array(let elements):
                guard let index = FieldPath.arrayIndex(component), index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }
}

extension JSONValue: Hashable {
    /// Structural equality; strings are equal when their UTF-8 bytes are, numbers by exact value
    /// (so `0` equals `-0` and `1e2` equals `100`).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0 == $1 }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            for (key, value) in a {
                guard let other = member(key, of: b), other == value else { return false }
            }
            return true
        default: return false
        }
    }

    /// Hashes consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .number(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .string(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(value.utf8.count)
            for byte in value.utf8 { hasher.combine(byte) }
        case .array(let elements):
            hasher.combine(4 as UInt8)
            hasher.combine(elements.count)
            for element in elements { element.hash(into: &hasher) }
        case .object(let members):
            hasher.combine(5 as UInt8)
            hasher.combine(members.count)
            for (key, value) in JSONValue.sortedMembers(members) {
                JSONValue.string(key).hash(into: &hasher)
                value.hash(into: &hasher)
            }
        }
    }

    /// The member of `members` named `name` byte for byte (a `Dictionary` lookup alone also
    /// finds a name canonically equivalent to it).
    static func member(_ name: String, of members: [String: JSONValue]) -> JSONValue? {
        guard let index = members.index(forKey: name), members[index].key.utf8.elementsEqual(name.utf8) else {
            return nil
        }
        return members[index].value
    }

    /// Object members sorted by the UTF-8 bytes of their keys (the canonical member order).
    static func sortedMembers(_ members: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
        members.sorted { JSONValue.compareBytes($0.key, $1.key) < 0 }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A number from an integer literal, exactly.
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    /// A number from a floating-point literal (its shortest round-trip decimal value).
    public init(floatLiteral value: Double) { self = .number(JSONNumber(floatLiteral: value)) }
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object (a repeated key keeps its last value).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue {
    /// Whether this is an array or an object.
    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        case .null, .bool, .number, .string: return false
        }
    }

    /// Whether arrays and objects nest deeper than `limit` (a scalar is depth 0, a flat object
    /// 1). Walks with a stack of its own and stops at the first value past the limit, so a value
    /// nested any deeper (built in code: JSON text is refused at 256 while parsed) never
    /// overflows the thread's stack.
    func nests(deeperThan limit: Int) -> Bool {
        var pending: [(value: JSONValue, depth: Int)] = [(self, 0)]
        while let (value, depth) = pending.popLast() {
            switch value {
            case .null, .bool, .number, .string: continue
            case .array(let elements):
                guard depth < limit else { return true }
                for element in elements where element.isContainer { pending.append((element, depth + 1)) }
            case .object(let members):
                guard depth < limit else { return true }
                for member in members.values where member.isContainer { pending.append((member, depth + 1)) }
            }
        }
        return false
    }
}
