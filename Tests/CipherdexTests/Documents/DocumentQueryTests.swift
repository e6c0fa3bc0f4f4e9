import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

final class DocumentQueryTests: XCTestCase {
    private static let names: [JSONValue] = ["ann", "bob", "cy", "dee", "Eve", "é", "", "ann2"]
    private static let cities: [JSONValue] = ["Oslo", "Rome", "Lima", "oslo", "Zürich"]
    private static let tagWords: [JSONValue] = ["red", "green", "blue"]
    private static let queryFields = [
        "age", "name", "score", "active", "address", "address.city", "address.zip", "tags", "tags.0",
        "meta.level.depth", "nothing",
    ]
    private static let indexedFields = ["age", "address.city", "name", "tags", "score"]

    // MARK: Random data

    private func randomScalar(_ g: inout SeededGenerator) -> JSONValue {
        switch Int.random(in: 0..<8, using: &g) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &g))
        case 2, 3: return .number(JSONNumber(Int.random(in: 0...20, using: &g)))
        case 4: return .number(JSONNumber(Double(Int.random(in: -20...20, using: &g)) + 0.5)!)
        case 5: return Self.names.randomElement(using: &g)!
        case 6: return Self.cities.randomElement(using: &g)!
        default: return Bool.random(using: &g) ? .array([]) : .object([:])
        }
    }

    private func randomDocument(_ g: inout SeededGenerator) -> JSONValue {
        var object: [String: JSONValue] = [:]
        let roll = { (g: inout SeededGenerator) in Double.random(in: 0..<1, using: &g) }
        if roll(&g) < 0.9 {
            let r = roll(&g)
            object["age"] =
                r < 0.7
                ? .number(JSONNumber(Int.random(in: 0...20, using: &g)))
                : r < 0.8 ? .number(JSONNumber(Double(Int.random(in: 0...20, using: &g)) + 0.5)!) : randomScalar(&g)
        }
        if roll(&g) < 0.85 { object["name"] = roll(&g) < 0.9 ? Self.names.randomElement(using: &g)! : randomScalar(&g) }
        if roll(&g) < 0.8 {
            object["score"] = .number(JSONNumber((Double.random(in: -10...10, using: &g) * 10).rounded() / 10)!)
        }
        if roll(&g) < 0.7 { object["active"] = roll(&g) < 0.85 ? .bool(Bool.random(using: &g)) : .null }
        if roll(&g) < 0.8 {
            if roll(&g) < 0.9 {
                var address: [String: JSONValue] = [:]
                if roll(&g) < 0.85 { address["city"] = Self.cities.randomElement(using: &g)! }
                if roll(&g) < 0.7 {
                    address["zip"] =
                        roll(&g) < 0.8
                        ? .number(JSONNumber(Int.random(in: 0...5, using: &g)))
                        : .string("0\(Int.random(in: 0...5, using: &g))")
                }
                object["address"] = .object(address)
            } else {
                object["address"] = Self.cities.randomElement(using: &g)!  // not an object: address.city is missing
            }
        }
        if roll(&g) < 0.7 {
            object["tags"] = .array(
                (0..<Int.random(in: 0...3, using: &g)).map { _ in Self.tagWords.randomElement(using: &g)! })
        }
        if roll(&g) < 0.3 {
            object["meta"] = ["level": ["depth": .number(JSONNumber(Int.random(in: 0...3, using: &g)))]]
        }
        return .object(object)
    }

    // MARK: Reference evaluation (independent of the implementation)

    private func referenceLookup(_ value: JSONValue, _ path: String) -> JSONValue? {
        var current = value
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            if case .object(let members) = current, let next = members[String(part)] {
                current = next
            } else if case .array(let elements) = current, let index = Int(part), String(index) == part, index >= 0,
                index < elements.count
            {
                current = elements[index]
            } else {
                return nil
            }
        }
        return current
    }

    private func rank(_ value: JSONValue) -> Int {
        switch value {
        case .null: return 0
        case .bool: return 1
        case .number: return 2
        case .string: return 3
        case .array: return 4
        case .object: return 5
        }
    }

    private func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a > b ? 1 : 0) }

    private func bytesOrder(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
    }

    private func referenceCompare(_ a: JSONValue, _ b: JSONValue) -> Int {
        if rank(a) != rank(b) { return sign(rank(a), rank(b)) }
        switch (a, b) {
        case (.bool(let x), .bool(let y)): return sign(x ? 1 : 0, y ? 1 : 0)
        case (.number(let x), .number(let y)): return sign(x.doubleValue, y.doubleValue)  // doubles here
        case (.string(let x), .string(let y)): return bytesOrder(x, y)
        case (.array(let x), .array(let y)):
            for i in 0..<min(x.count, y.count) where referenceCompare(x[i], y[i]) != 0 {
                return referenceCompare(x[i], y[i])
            }
            return sign(x.count, y.count)
        case (.object(let x), .object(let y)):
            let xs = x.sorted { bytesOrder($0.key, $1.key) < 0 }
            let ys = y.sorted { bytesOrder($0.key, $1.key) < 0 }
            for i in 0..<min(xs.count, ys.count) {
                if bytesOrder(xs[i].key, ys[i].key) != 0 { return bytesOrder(xs[i].key, ys[i].key) }
                if referenceCompare(xs[i].value, ys[i].value) != 0 { return referenceCompare(xs[i].value, ys[i].value) }
            }
            return sign(xs.count, ys.count)
        default: return 0
        }
    }

    private func referenceFind(
        _ documents: [String: JSONValue], _ predicates: [FieldPredicate], _ orderBy: [SortKey], _ limit: Int?
    ) -> [String] {
        let matching = documents.filter { _, value in
            predicates.allSatisfy { predicate in
                guard let field = referenceLookup(value, predicate.field) else { return false }
                let order = referenceCompare(field, predicate.value)
                switch predicate.comparison {
                case .equal: return order == 0
                case .lessThan: return order < 0
                case .lessThanOrEqual: return order <= 0
                case .greaterThan: return order > 0
                case .greaterThanOrEqual: return order >= 0
                }
            }
        }
        let sorted = matching.sorted { left, right in
            for key in orderBy {
                let a = referenceLookup(left.value, key.field)
                let b = referenceLookup(right.value, key.field)
                var order = a == nil ? (b == nil ? 0 : -1) : (b == nil ? 1 : referenceCompare(a!, b!))
                if key.descending { order = -order }
                if order != 0 { return order < 0 }
            }
            return bytesOrder(left.key, right.key) < 0
        }.map(\.key)
        return limit.map { Array(sorted.prefix($0)) } ?? sorted
    }

    // MARK: Tests

    func testRandomQueriesMatchReferenceWithAndWithoutIndexes() throws {
        var g = SeededGenerator(seed: 20_240_601)
        let store = try DocumentTestSupport.openStore()
        let plain = try store.collection("plain")
        let indexed = try store.createCollection("indexed", indexedFields: Self.indexedFields)
        var reference: [String: JSONValue] = [:]
        try store.transaction { tx in
            let txPlain = try tx.collection("plain")
            let txIndexed = try tx.collection("indexed")
            for n in 0..<300 {
                let id = "doc-\(String(n, radix: 36))"
                let value = randomDocument(&g)
                reference[id] = value
                try txPlain.insert(id: id, value: value)
                try txIndexed.insert(id: id, value: value)
            }
        }
        // Updates, new documents and removals keep the indexes in step.
        for _ in 0..<40 {
            let id =
                Bool.random(using: &g)
                ? reference.keys.sorted().randomElement(using: &g)! : "new-\(Int.random(in: 0...999, using: &g))"
            let value = randomDocument(&g)
            reference[id] = value
            try plain.upsert(id: id, value: value)
            try indexed.upsert(id: id, value: value)
        }
        for id in reference.keys.sorted().shuffled(using: &g).prefix(30) {
            reference[id] = nil
            XCTAssertTrue(try plain.remove(id: id))
            XCTAssertTrue(try indexed.remove(id: id))
        }
        try indexed.createIndex(on: "active")  // built over existing documents

        let ids = reference.keys.sorted()
        var indexScans = 0
        var nonEmpty = 0
        for round in 0..<200 {
            var predicates: [FieldPredicate] = []
            for _ in 0..<Int.random(in: 0...3, using: &g) {
                let field = Self.queryFields.randomElement(using: &g)!
                let comparison = [
                    FieldPredicate.Comparison.equal, .equal, .lessThan, .lessThanOrEqual, .greaterThan,
                    .greaterThanOrEqual,
                ]
                .randomElement(using: &g)!
                let sample = referenceLookup(reference[ids.randomElement(using: &g)!]!, field)
                let value = Double.random(in: 0..<1, using: &g) < 0.6 ? (sample ?? randomScalar(&g)) : randomScalar(&g)
                predicates.append(FieldPredicate(field, comparison, value))
            }
            let orderBy = (0..<Int.random(in: 0...2, using: &g)).map { _ in
                SortKey(Self.queryFields.randomElement(using: &g)!, descending: Bool.random(using: &g))
            }
            let limit = Bool.random(using: &g) ? Int.random(in: 0...25, using: &g) : nil
            let expected = referenceFind(reference, predicates, orderBy, limit)
            let fromPlain = try plain.find(where: predicates, orderBy: orderBy, limit: limit)
            let fromIndexed = try indexed.find(where: predicates, orderBy: orderBy, limit: limit)
            let context = "round \(round): \(predicates) \(orderBy) \(String(describing: limit))"
            XCTAssertEqual(fromPlain.map(\.id), expected, context)
            XCTAssertEqual(fromIndexed.map(\.id), expected, context)
            for document in fromIndexed { XCTAssertEqual(document.value, reference[document.id], context) }
            XCTAssertEqual(try plain.explain(where: predicates), .fullScan)
            if case .indexScan = try indexed.explain(where: predicates) { indexScans += 1 }
            if !expected.isEmpty { nonEmpty += 1 }
        }
        XCTAssertGreaterThan(indexScans, 60)
        XCTAssertGreaterThan(nonEmpty, 100)
    }

    func testEqualityOnIndexedFieldUsesTheIndex() throws {
        let store = try DocumentTestSupport.openStore()
        let people = try store.createCollection("people", indexedFields: ["age", "address.city"])
        for n in 0..<50 {
            try people.insert(
                id: "p\(n)",
                value: [
                    "age": .number(JSONNumber(n % 10)), "address": ["city": n % 2 == 0 ? "Oslo" : "Rome"],
                    "n": .number(JSONNumber(n)),
                ])
        }
        XCTAssertEqual(try people.explain(where: [.equal("age", 3)]), .indexScan("age"))
        XCTAssertEqual(
            try people.explain(where: [.greaterThan("n", 3), .equal("address.city", "Oslo")]),
            .indexScan("address.city"))
        XCTAssertEqual(
            try people.explain(where: [.lessThan("age", 3), .greaterThanOrEqual("age", 1)]), .indexScan("age"))
        XCTAssertEqual(try people.explain(where: [.equal("n", 3)]), .fullScan)
        XCTAssertEqual(try people.explain(where: []), .fullScan)
        XCTAssertEqual(try people.find(where: [.equal("age", 3)]).map(\.id), ["p13", "p23", "p3", "p33", "p43"])
        XCTAssertEqual(
            try people.find(
                where: [.lessThan("age", 2), .greaterThan("age", 0)], orderBy: [.descending("n")], limit: 2
            ).map(\.id), ["p41", "p31"])
        XCTAssertEqual(try people.find(where: [.equal("address.city", "Rome"), .equal("age", 2)]).count, 0)
        // The index follows updates and removals.
        try people.upsert(id: "p3", value: ["age": 99])
        XCTAssertTrue(try people.remove(id: "p13"))
        XCTAssertEqual(try people.find(where: [.equal("age", 3)]).map(\.id), ["p23", "p33", "p43"])
        XCTAssertEqual(try people.find(where: [.equal("age", 99)]).map(\.id), ["p3"])
        try people.dropIndex(on: "age")
        XCTAssertEqual(try people.explain(where: [.equal("age", 3)]), .fullScan)
    }

    func testLongStringsSharingAnIndexKeyPrefix() throws {
        let store = try DocumentTestSupport.openStore()
        let texts = try store.createCollection("texts", indexedFields: ["t"])
        let prefix = String(repeating: "p", count: JSONValue.indexStringLimit + 10)
        try texts.insert(id: "a", value: ["t": .string(prefix + "a")])
        try texts.insert(id: "b", value: ["t": .string(prefix + "b")])
        try texts.insert(id: "c", value: ["t": .string(prefix)])
        XCTAssertEqual(try texts.find(where: [.equal("t", .string(prefix + "b"))]).map(\.id), ["b"])
        XCTAssertEqual(try texts.find(where: [.greaterThan("t", .string(prefix + "a"))]).map(\.id), ["b"])
        XCTAssertEqual(try texts.find(where: [.lessThan("t", .string(prefix + "a"))]).map(\.id), ["c"])
    }
}
