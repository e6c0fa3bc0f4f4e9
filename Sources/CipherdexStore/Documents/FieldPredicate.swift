/// A condition on one field of a document, for `DocumentCollection.find(where:)`.
///
/// A document whose field is missing never matches. Comparisons use `JSONValue`'s total order
/// (null < bool < number < string < array < object), so `lessThan("age", 30)` also matches an
/// `age` that is `null` or a boolean.
public struct FieldPredicate: Sendable, Hashable {
    /// The comparison applied between the field's value and the operand.
    public enum Comparison: String, Sendable, Hashable {
        /// `field == value`.
        case equal
        /// `field < value`.
        case lessThan
        /// `field <= value`.
        case lessThanOrEqual
        /// `field > value`.
        case greaterThan
        /// `field >= value`.
        case greaterThanOrEqual
    }

    /// The dotted path of the field (`address.city`).
    public var field: String
    /// The comparison.
    public var comparison: Comparison
    /// The operand.
    public var value: JSONValue

    /// A predicate comparing `field` with `value`.
    public init(_ field: String, _ comparison: Comparison, _ value: JSONValue) {
        self.field = field
        self.comparison = comparison
        self.value = value
    }

    /// `field == value`.
    public static func equal(_ field: String, _ value: JSONValue) -> FieldPredicate { .init(field, .equal, value) }
    /// `field < value`.
    public static func lessThan(_ field: String, _ value: JSONValue) -> FieldPredicate {
        .init(field, .lessThan, value)
    }
    /// `field <= value`.
    public static func lessThanOrEqual(_ field: String, _ value: JSONValue) -> FieldPredicate {
        .init(field, .lessThanOrEqual, value)
    }
    /// `field > value`.
    public static func greaterThan(_ field: String, _ value: JSONValue) -> FieldPredicate {
        .init(field, .greaterThan, value)
    }
    /// `field >= value`.
    public static func greaterThanOrEqual(_ field: String, _ value: JSONValue) -> FieldPredicate {
        .init(field, .greaterThanOrEqual, value)
    }

    /// Whether the comparison holds for a field value.
    func holds(for fieldValue: JSONValue) -> Bool {
        let order = JSONValue.compare(fieldValue, value)
        switch comparison {
        case .equal: return order == 0
        case .lessThan: return order < 0
        case .lessThanOrEqual: return order <= 0
        case .greaterThan: return order > 0
        case .greaterThanOrEqual: return order >= 0
        }
    }
}
