import Cipherdex
import Foundation

/// The store suite's product-level workload: JSON documents of about 1 KiB through the
/// documents API (parsing, canonical form, an indexed field), inserted in transactions of 1,000,
/// then `get(id:)` point reads in random order, twice.
enum DocumentAPIWorkload {
    /// Returns (bulk insert seconds, first-pass reads, second-pass reads).
    static func run(store: Store, documents: Int, reads: Int) throws -> (Double, Double, Double) {
        let collection = try store.createCollection("patients", indexedFields: ["city"])
        var generator = SplitMix(seed: 11)
        let cities = ["London", "Paris", "Berlin", "Madrid", "Rome", "Vienna", "Lisbon", "Dublin"]
        let words = ["observation", "follow-up", "dose", "reviewed", "stable", "referral", "imaging", "history"]
        func note() -> String {
            (0..<110).map { _ in words[Int(generator.next() % UInt64(words.count))] }.joined(separator: " ")
        }
        let values: [JSONValue] = (0..<documents).map { index in
            [
                "name": .string("Patient \(index)"), "city": .string(cities[index % cities.count]),
                "age": .number(JSONNumber(index % 97)), "notes": .string(note()),
            ]
        }
        let insert = try Bench.time {
            var index = 0
            while index < documents {
                let end = min(index + 1000, documents)
                try store.transaction { tx in
                    let batch = try tx.collection("patients")
                    for row in index..<end { try batch.insert(id: "p\(row)", value: values[row]) }
                }
                index = end
            }
        }
        let ids = (0..<reads).map { _ in "p\(generator.next() % UInt64(documents))" }
        var passes: [Double] = []
        for _ in 0..<2 {
            passes.append(try Bench.time { for id in ids { _ = try collection.get(id: id) } })
        }
        return (insert, passes[0], passes[1])
    }
}
