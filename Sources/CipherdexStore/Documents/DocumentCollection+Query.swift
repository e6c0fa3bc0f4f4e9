import Foundation

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
        try matches(where: predicates, orderBy: orderBy, limit: limit) { id, body, value in
            Document(uncheckedID: id, value: try value ?? DocumentStorage.decodeBody(body, collection: name))
        }
    }

    /// The documents `find(where:orderBy:limit:)` returns, in the same order, as their stored
    /// JSON text (see `json(id:)`) rather than as `JSONValue` trees.
    ///
    /// A document is parsed only when a predicate or a sort key needs its fields, and its tree
    /// is dropped once they are read; with neither, each text is only checked, so the cost is
    /// about the size of the matching texts. Throws as `find` does.
    public func findJSON(where predicates: [FieldPredicate] = [], orderBy: [SortKey] = [], limit: Int? = nil)
        throws -> [DocumentJSON]
    {
        try matches(where: predicates, orderBy: orderBy, limit: limit) { id, body, value in
            // A parsed body was checked by the parser, which refuses all the validator does.
            switch value {
            case .some: DocumentJSON(id: id, json: Data(body))
            case .none: DocumentJSON(id: id, json: try DocumentStorage.checkedText(body, collection: name))
            }
        }
    }

    /// The plan `find` would use for these predicates (for tests and diagnostics).
    func explain(where predicates: [FieldPredicate]) throws -> QueryPlan {
        let parsed = try predicates.map { (path: try FieldPath($0.field), predicate: $0) }
        return try performRead { storage in
            PlannedQuery.choose(parsed, indexed: try storage.existingCollection(name).indexedFields).plan
        }
    }

    /// The query of `find` and `findJSON`: each match made by `make` from its id, its stored
    /// body (in place) and its value when a predicate or a sort key needed it parsed (nil
    /// otherwise), in `find`'s order.
    private func matches<Match>(
        where predicates: [FieldPredicate], orderBy: [SortKey], limit: Int?,
        _ make: (String, UnsafeRawBufferPointer, JSONValue?) throws -> Match
    ) throws -> [Match] {
        try Self.validate(limit: limit)
        let parsed = try predicates.map { (path: try FieldPath($0.field), predicate: $0) }
        let sortPaths = try orderBy.map { (path: try FieldPath($0.field), descending: $0.descending) }
        let parses = !parsed.isEmpty || !sortPaths.isEmpty
        return try performRead { storage in
            let info = try storage.existingCollection(name)
            let planned = PlannedQuery.choose(parsed, indexed: info.indexedFields)
            // Without an ordering, candidates arrive in id order and the scan can stop early.
            let stopAt = sortPaths.isEmpty ? limit : nil
            var results: [(match: Match, id: String, keys: [JSONValue?])] = []
            if stopAt == 0 { return [] }
            let visit: (String, UnsafeRawBufferPointer) throws -> Bool = { id, body in
                // Not a `nil` literal: `JSONValue` is expressible by one (`.null`).
                let value: JSONValue? = parses ? .some(try DocumentStorage.decodeBody(body, collection: name)) : .none
                if let value {
                    let holds = parsed.allSatisfy { entry in
                        guard let fieldValue = value.value(at: entry.path) else { return false }
                        return entry.predicate.holds(for: fieldValue)
                    }
                    guard holds else { return true }
                }
                let keys = sortPaths.map { value?.value(at: $0.path) }
                results.append((try make(id, body, value), id, keys))
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
            return results.map(\.match)
        }
    }

    /// Sorts matches by their keys' values (`keys`, one per sort key), a missing field first in
    /// ascending order, then by id.
    private static func sorted<Match>(
        _ matches: [(match: Match, id: String, keys: [JSONValue?])], by keys: [(path: FieldPath, descending: Bool)]
    ) -> [(match: Match, id: String, keys: [JSONValue?])] {
        matches.sorted { left, right in
            for (offset, key) in keys.enumerated() {
                var order: Int
                switch (left.keys[offset], right.keys[offset]) {
                case (nil, nil): order = 0
                case (nil, _): order = -1
                case (_, nil): order = 1
                case (let a?, let b?): order = JSONValue.compare(a, b)
                }
                if key.descending { order = -order }
                if order != 0 { return order < 0 }
            }
            return JSONValue.compareBytes(left.id, right.id) < 0
        }
    }
}
