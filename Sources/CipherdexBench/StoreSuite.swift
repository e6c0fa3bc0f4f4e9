import Cipherdex
import Foundation

/// Issue 2's suite: open latency by key kind, and bulk insert / point read encrypted versus
/// unencrypted on the same workload.
enum StoreSuite {
    static func run(quick: Bool) throws -> String {
        var output = ""
        output += try openLatency(iterations: quick ? 5 : 21)
        output += "\n" + (try workload(documents: quick ? 5_000 : 50_000, reads: quick ? 2_000 : 20_000, api: false))
        output += "\n" + (try workload(documents: quick ? 5_000 : 50_000, reads: quick ? 2_000 : 20_000, api: true))
        return output
    }

    static func openLatency(iterations: Int, includePassphrase: Bool = true) throws -> String {
        let rawBytes = (0..<32).map { UInt8($0) }
        let kinds: [(String, KeyProvider?)] = [
            ("plaintext", nil),
            ("raw key", { try EncryptionKey.raw(rawBytes) }),
            ("passphrase (Argon2id default cost)", { try EncryptionKey.passphrase("benchmark passphrase") }),
        ]
        var table = ResultTable(
            title: "Open latency (open + close, median of \(iterations))",
            columns: ["store", "median", "p90", "vs plaintext"])
        var plaintextMedian = 0.0
        for (label, provider) in kinds where includePassphrase || !label.hasPrefix("passphrase") {
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
            table.add([
                label, Bench.ms(median), Bench.ms(Bench.percentile(samples, 90)), Bench.ratio(median / plaintextMedian),
            ])
        }
        return table.markdown
    }

    private static func workload(documents: Int, reads: Int, api: Bool) throws -> String {
        let title =
            api
            ? "Documents API: \(documents) JSON documents of ~1 KiB with an indexed field (transactions of 1,000), then \(reads) get(id:) in random order, twice"
            : "SQL floor: rows of 1 KiB with an indexed key, bulk insert of \(documents) (transactions of 1,000), then \(reads) indexed point reads in random order, twice"
        var table = ResultTable(
            title: title,
            columns: [
                "store", "bulk insert", "rows/s", "point read, first pass", "point read, second pass", "database bytes",
            ])
        // Alternate the two stores over several rounds so machine noise hits both alike.
        let rounds = 3
        var samples: [Bool: [(insert: Double, cold: Double, warm: Double)]] = [true: [], false: []]
        var sizes: [Bool: UInt64] = [:]
        for _ in 0..<rounds {
            for encrypted in [false, true] {
                let path = Bench.scratchDirectory("docs")
                let rawBytes = (0..<32).map { UInt8($0 &* 3) }
                let rawKey: KeyProvider = { try EncryptionKey.raw(rawBytes) }
                // A page cache that holds the working set (both stores alike): pages stay
                // decrypted in memory, as in an application that reads the same data again.
                let configuration = StoreConfiguration(
                    path: path + "/store", keyProvider: encrypted ? rawKey : nil, cacheSizeKiB: 128 * 1024)
                let store = try Store.open(configuration)
                let (insert, cold, warm) =
                    api
                    ? try DocumentAPIWorkload.run(store: store, documents: documents, reads: reads)
                    : try DocumentWorkload.run(store: store, documents: documents, reads: reads)
                samples[encrypted]!.append((insert, cold, warm))
                store.close()
                sizes[encrypted] = try Store.open(configuration).info().databaseBytes
                try Store.delete(at: path + "/store")
            }
        }
        func median(_ encrypted: Bool, _ field: KeyPath<(insert: Double, cold: Double, warm: Double), Double>) -> Double
        {
            Bench.median(samples[encrypted]!.map { $0[keyPath: field] })
        }
        for encrypted in [false, true] {
            let insert = median(encrypted, \.insert)
            table.add([
                encrypted ? "encrypted (raw key)" : "plaintext", Bench.ms(insert),
                String(format: "%.0f", Double(documents) / insert),
                String(format: "%.1f µs", median(encrypted, \.cold) / Double(reads) * 1e6),
                String(format: "%.1f µs", median(encrypted, \.warm) / Double(reads) * 1e6),
                "\(sizes[encrypted] ?? 0)",
            ])
        }
        let insertRatio = median(true, \.insert) / median(false, \.insert)
        let coldRatio = median(true, \.cold) / median(false, \.cold)
        let warmRatio = median(true, \.warm) / median(false, \.warm)
        return table.markdown
            + "\nencrypted/plaintext, same run (median of \(rounds) alternating rounds): bulk insert \(Bench.ratio(insertRatio)) (target ≤ 1.15); point read second pass \(Bench.ratio(warmRatio)) (target ≤ 1.05); first pass \(Bench.ratio(coldRatio)) (every page touched for the first time is decrypted)\n"
    }
}
