/// One key of a query's ordering, for `DocumentCollection.find(where:orderBy:limit:)`.
///
/// Values are ordered by `JSONValue`'s total order; a document missing the field sorts before
/// every value in ascending order (after every value in descending order). Ties between all keys
/// are broken by document id, ascending.
public struct SortKey: Sendable, Hashable {
    /// The dotted path of the field.
    public var field: String
    /// Whether larger values come first.
    public var descending: Bool

    /// A sort key on `field`.
    public init(_ field: String, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    /// Ascending by `field`.
    public static func ascending(_ field: String) -> SortKey { SortKey(field) }
    /// Descending by `field`.
    public static func descending(_ field: String) -> SortKey { SortKey(field, descending: true) }
}
