import Cipherdex
import Foundation

/// Issue 2's suite: open latency by key kind, and bulk insert / point read encrypted versus
/// unencrypted on the same workload.
enum StoreSuite {
    static func run(quick: Bool) throws -> String {
        var output = ""
        output += try openLatency(iterations: quick ? 5 : 21)
        output += "\n" + (try workload(documents: quick ? 5_000 : 50_000, reads: quick ? 2_000 : 20_000))
        return output
    }

    private static func openLatency(iterations: Int) throws -> String {
        let rawBytes = (0..<32).map { UInt8($0) }
        let kinds: [(String, KeyProvider?)] = [
            ("plaintext", nil),
            ("raw key", { try EncryptionKey.raw(rawBytes) }),
            ("passphrase (Argon2id default cost)", { try EncryptionKey.passphrase("benchmark passphrase") }),
        ]
        var table = ResultTable(title: "Open latency (open + close, median of \(iterations))", columns: ["store", "median", "p90", "vs plaintext"])
        var plaintextMedian = 0.0
        for (label, provider) in kinds {
            let path = Bench.scratchDirectory("open")
            defer { try? Store.delete(at: path + "/store") }
            let configuration = StoreConfiguration(path: path + "/store", keyProvider: provider)
            try Store.open(configuration).close()
            var samples: [Double] = []
            for _ in 0..<iterations {
                samples.append(try Bench.time { try Store.open(configuration).close() })
            }
            let median = Bench.median(samples)
            if provider == nil { plaintextMedian = median }
            table.add([label, Bench.ms(median), Bench.ms(Bench.percentile(samples, 90)), Bench.ratio(median / plaintextMedian)])
        }
        return table.markdown
    }

    private static func workload(documents: Int, reads: Int) throws -> String {
        var table = ResultTable(
            title: "Documents: bulk insert of \(documents) (batches of 1,000) and \(reads) indexed point reads",
            columns: ["store", "bulk insert", "docs/s", "point read (mean)", "database bytes"])
        var results: [Bool: (insert: Double, read: Double)] = [:]
        // Alternate the two stores over several rounds so machine noise hits both alike.
        let rounds = 3
        var inserts: [Bool: [Double]] = [true: [], false: []]
        var readTimes: [Bool: [Double]] = [true: [], false: []]
        var sizes: [Bool: UInt64] = [:]
        for _ in 0..<rounds {
            for encrypted in [false, true] {
                let path = Bench.scratchDirectory("docs")
                let rawBytes = (0..<32).map { UInt8($0 &* 3) }
                let store = try Store.open(
                    StoreConfiguration(path: path + "/store", keyProvider: encrypted ? { try EncryptionKey.raw(rawBytes) } : nil))
                let (insert, read) = try DocumentWorkload.run(store: store, documents: documents, reads: reads)
                inserts[encrypted]!.append(insert)
                readTimes[encrypted]!.append(read)
                store.close()
                sizes[encrypted] = try Store.open(
                    StoreConfiguration(path: path + "/store", keyProvider: encrypted ? { try EncryptionKey.raw(rawBytes) } : nil)
                ).info().databaseBytes
                try Store.delete(at: path + "/store")
            }
        }
        for encrypted in [false, true] {
            results[encrypted] = (Bench.median(inserts[encrypted]!), Bench.median(readTimes[encrypted]!))
            let (insert, read) = results[encrypted]!
            table.add([
                encrypted ? "encrypted (raw key)" : "plaintext", Bench.ms(insert),
                String(format: "%.0f", Double(documents) / insert), String(format: "%.1f µs", read / Double(reads) * 1e6),
                "\(sizes[encrypted] ?? 0)",
            ])
        }
        let insertRatio = results[true]!.insert / results[false]!.insert
        let readRatio = results[true]!.read / results[false]!.read
        return table.markdown
            + "\nencrypted/plaintext, same run (median of \(rounds) alternating rounds): bulk insert \(Bench.ratio(insertRatio)) (target ≤ 1.15), point read \(Bench.ratio(readRatio)) (target ≤ 1.05)\n"
    }
}
