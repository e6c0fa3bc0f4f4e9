extension JSONValue: Comparable {
    /// The total order of JSON values, used by range predicates and sorting:
    ///
    /// 1. By type: null < bool < number < string < array < object.
    /// 2. Within a type: false < true; numbers by exact decimal value (`-0 == 0`, and
    ///    `2^53 < 2^53 + 1`, never through doubles); strings by their UTF-8
    ///    bytes (Unicode code point order); arrays element by element, a prefix first; objects
    ///    member by member in canonical key order (key bytes first, then value), a prefix first.
    ///
    /// Returns a negative number, zero or a positive number as `lhs` is less than, equal to or
    /// greater than `rhs`; zero exactly when `lhs == rhs`.
    public static func compare(_ lhs: JSONValue, _ rhs: JSONValue) -> Int {
        let lhsRank = lhs.typeRank
        let rhsRank = rhs.typeRank
        if lhsRank != rhsRank { return lhsRank < rhsRank ? -1 : 1 }
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)):
            return a == b ? 0 : (a ? 1 : -1)
        case (.number(let a), .number(let b)):
            return JSONNumber.compare(a, b)
        case (.string(let a), .string(let b)):
            return compareBytes(a, b)
        case (.array(let a), .array(let b)):
            for (x, y) in zip(a, b) {
                let order = compare(x, y)
                if order != 0 { return order }
            }
            return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
        case (.object(let a), .object(let b)):
            let sortedA = sortedMembers(a)
            let sortedB = sortedMembers(b)
            for (x, y) in zip(sortedA, sortedB) {
                let keyOrder = compareBytes(x.key, y.key)
                if keyOrder != 0 { return keyOrder }
                let valueOrder = compare(x.value, y.value)
                if valueOrder != 0 { return valueOrder }
            }
            return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
        default:
            return 0  // .null, .null
        }
    }

    /// `compare(lhs, rhs) < 0`.
    public static func < (lhs: JSONValue, rhs: JSONValue) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// The position of the value's type in the order.
    var typeRank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .number: return 2
        case .string: return 3
        case .array: return 4
        case .object: return 5
        }
    }

    /// Compares two strings by their UTF-8 bytes.
    static func compareBytes(_ lhs: String, _ rhs: String) -> Int {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let a?, let b?):
                if a != b { return a < b ? -1 : 1 }
            }
        }
    }
}
