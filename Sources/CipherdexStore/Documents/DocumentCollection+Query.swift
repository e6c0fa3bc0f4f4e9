extension DocumentCollection {
    /// The documents matching every predicate (all documents when `predicates` is empty),
    /// ordered by `orderBy` then by id (by id alone when `orderBy` is empty), at most `limit`.
    ///
    /// Predicates compare with `JSONValue`'s total order; a document missing a predicate's field
    /// never matches. When a predicate's field is indexed in the collection, candidates come
    /// from the index (equality first, else a range); otherwise the collection is scanned.
    /// Throws `invalidFieldPath`, `invalidPagination` or `unknownCollection`.
    public func find(where predicates: [FieldPredicate] = [], orderBy: [SortKey] = [], limit: Int? = nil) throws
        -> [Document]
    {
        try Self.validate(limit: limit)
        let parsed = try predicates.map { (path: try FieldPath($0.field), predicate: $0) }
        let sortPaths = try orderBy.map { (path: try FieldPath($0.field), descending: $0.descending) }
        return try performRead { storage in
            let info = try storage.existingCollection(name)
            let planned = PlannedQuery.choose(parsed, indexed: info.indexedFields)
            // Without an ordering, candidates arrive in id order and the scan can stop early.
            let stopAt = sortPaths.isEmpty ? limit : nil
            var results: [Document] = []
            if stopAt == 0 { return results }
            let visit: (Document) -> Bool = { document in
                let matches = parsed.allSatisfy { entry in
                    guard let fieldValue = document.value.value(at: entry.path) else { return false }
                    return entry.predicate.holds(for: fieldValue)
                }
                if matches { results.append(document) }
                return stopAt.map { results.count < $0 } ?? true
            }
            if let field = planned.field {
                try storage.indexScan(collection: name, field: field, lower: planned.lower, upper: planned.upper, visit)
            } else {
                try storage.scan(collection: name, visit)
            }
            if !sortPaths.isEmpty {
                results = Self.sorted(results, by: sortPaths)
                if let limit, results.count > limit { results.removeSubrange(limit...) }
            }
            return results
        }
    }

    /// The plan `find` would use for these predicates (for tests and diagnostics).
    func explain(where predicates: [FieldPredicate]) throws -> QueryPlan {
        let parsed = try predicates.map { (path: try FieldPath($0.field), predicate: $0) }
        return try performRead { storage in
            PlannedQuery.choose(parsed, indexed: try storage.existingCollection(name).indexedFields).plan
        }
    }

    /// Sorts documents by the keys, a missing field first in ascending order, then by id.
    static func sorted(_ documents: [Document], by keys: [(path: FieldPath, descending: Bool)]) -> [Document] {
        let decorated = documents.map { document in (document, keys.map { document.value.value(at: $0.path) }) }
        return decorated.sorted { left, right in
            for (offset, key) in keys.enumerated() {
                var order: Int
                switch (left.1[offset], right.1[offset]) {
                case (nil, nil): order = 0
                case (nil, _): order = -1
                case (_, nil): order = 1
                case (let a?, let b?): order = JSONValue.compare(a, b)
                }
                if key.descending { order = -order }
                if order != 0 { return order < 0 }
            }
            return JSONValue.compareBytes(left.0.id, right.0.id) < 0
        }.map(\.0)
    }
}
