/// A value stored in or read from an SQLite column.
public enum SQLValue: Equatable, Hashable, Sendable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob([UInt8])

    /// The integer, when this is one.
    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The text, when this is text.
    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes, when this is a blob.
    public var blobValue: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }

    /// The number as a double, when this is an integer or real.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        default: return nil
        }
    }
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A text literal.
    public init(stringLiteral value: String) { self = .text(value) }
    /// NULL.
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue {
    /// An integer from an `Int`.
    public static func int(_ value: Int) -> SQLValue { .integer(Int64(value)) }
}
