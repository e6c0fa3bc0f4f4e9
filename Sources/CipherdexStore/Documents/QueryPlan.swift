/// How `find` reads candidates; every candidate is then checked against all predicates.
enum QueryPlan: Equatable, Sendable {
    /// Every document of the collection, in id order.
    case fullScan
    /// The index entries of one field whose keys lie in a range (a single key for equality).
    case indexScan(String)
}

/// A chosen plan with its key range.
struct PlannedQuery {
    /// The plan.
    let plan: QueryPlan
    /// The indexed field, for an index scan.
    let field: FieldPath?
    /// Inclusive key bounds (empty and `[0xFF]` when open).
    let lower: [UInt8]
    let upper: [UInt8]

    /// Key bound below every index key.
    static let lowest: [UInt8] = []
    /// Key bound above every index key (type tags are at most 0x60).
    static let highest: [UInt8] = [0xFF]

    /// Picks the plan: an equality on an indexed field first, else the range predicates on the
    /// first indexed field that has any (their bounds combined), else a full scan. Bounds are
    /// inclusive even for strict comparisons because index keys are monotone, not injective.
    static func choose(_ predicates: [(path: FieldPath, predicate: FieldPredicate)], indexed: [FieldPath])
        -> PlannedQuery
    {
        let indexedSet = Set(indexed)
        if let equality = predicates.first(where: { $0.predicate.comparison == .equal && indexedSet.contains($0.path) })
        {
            let key = equality.predicate.value.indexKey
            return PlannedQuery(plan: .indexScan(equality.path.rawValue), field: equality.path, lower: key, upper: key)
        }
        guard let first = predicates.first(where: { indexedSet.contains($0.path) }) else {
            return PlannedQuery(plan: .fullScan, field: nil, lower: lowest, upper: highest)
        }
        var lower = lowest
        var upper = highest
        for (path, predicate) in predicates where path == first.path {
            let key = predicate.value.indexKey
            switch predicate.comparison {
            case .greaterThan, .greaterThanOrEqual:
                if lower.lexicographicallyPrecedes(key) { lower = key }
            case .lessThan, .lessThanOrEqual:
                if key.lexicographicallyPrecedes(upper) { upper = key }
            case .equal:
                break
            }
        }
        return PlannedQuery(plan: .indexScan(first.path.rawValue), field: first.path, lower: lower, upper: upper)
    }
}
