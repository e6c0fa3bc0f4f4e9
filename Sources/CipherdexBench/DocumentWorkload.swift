import Cipherdex
import CipherdexPDFWriter
import Foundation

/// The store suite's workload: rows of about 1 KiB with an indexed key, inserted in
/// transactions of 1,000, then point reads through the index in random order. The same rows, in
/// the same order, for the encrypted and the plaintext store.
enum DocumentWorkload {
    /// Returns (bulk insert seconds, first-pass point reads, second-pass point reads). The first
    /// pass decrypts each page it touches; the second finds them in the page cache.
    static func run(store: Store, documents: Int, reads: Int) throws -> (Double, Double, Double) {
        try store.write { db in
            try db.execute("CREATE TABLE bench (id INTEGER PRIMARY KEY, key TEXT NOT NULL, body BLOB NOT NULL)")
            try db.execute("CREATE INDEX bench_key ON bench (key)")
        }
        var generator = SplitMix(seed: 42)
        let bodies = (0..<64).map { _ in (0..<1024).map { _ in UInt8(truncatingIfNeeded: generator.next()) } }
        let insert = try Bench.time {
            var index = 0
            while index < documents {
                let end = min(index + 1000, documents)
                try store.write { db in
                    try db.transaction {
                        for row in index..<end {
                            try db.execute(
                                "INSERT INTO bench (key, body) VALUES (?, ?)",
                                [.text("key-\(row &* 7919 % documents)"), .blob(bodies[row % bodies.count])])
                        }
                    }
                }
                index = end
            }
        }
        let keys = (0..<reads).map { _ in "key-\(Int(generator.next() % UInt64(documents)))" }
        var passes: [Double] = []
        try store.read { db in
            for _ in 0..<2 {
                passes.append(
                    try Bench.time {
                        for key in keys {
                            _ = try db.scalar("SELECT length(body) FROM bench WHERE key = ?", [.text(key)])
                        }
                    })
            }
        }
        return (insert, passes[0], passes[1])
    }
}

/// The benchmarks use the sample generator, so both stores get identical data.
typealias SplitMix = SampleGenerator
