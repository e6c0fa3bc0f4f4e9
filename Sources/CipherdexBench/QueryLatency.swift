import Cipherdex
import CipherdexPDFWriter
import Foundation

/// The query half of the search suite.
enum QueryLatency {
    struct Outcome {
        var summary: ResultTable
        var perQuery: ResultTable
        /// p50 seconds by tool ("cipherdex", "recollq", "pdfgrep").
        var p50: [String: Double]
    }

    /// Runs every query `repetitions` times on the warm Cipherdex store and with `recollq`
    /// (alternating), then `pdfgrepRuns` times with `pdfgrep`.
    static func measure(
        queries: [BenchQuery], store path: String, peers: SearchPeers, repetitions: Int, pdfgrepRuns: Int
    ) throws -> Outcome {
        let store = try Store.open(CipherdexIndexer.configuration(path))
        defer { store.close() }
        let library = store.library
        var found: [(pages: Int, documents: Int)] = []
        for query in queries {  // warm-up: the page cache holds the index afterwards
            let results = try library.search(query.cipherdex)
            found.append((results.previews.count, results.documents.count))
        }
        var cipherdex = Array(repeating: [Double](), count: queries.count)
        var recoll = Array(repeating: [Double](), count: queries.count)
        var recollFound = Array(repeating: Int?.none, count: queries.count)
        var pdfgrep = Array(repeating: [Double](), count: queries.count)
        var pdfgrepLines = Array(repeating: 0, count: queries.count)
        for _ in 0..<repetitions {
            for (index, query) in queries.enumerated() {
                cipherdex[index].append(try Bench.time { _ = try library.search(query.cipherdex) })
                if peers.hasRecoll {
                    let (seconds, count) = try peers.recollq(query.recoll)
                    recoll[index].append(seconds)
                    recollFound[index] = count
                }
            }
        }
        var recollAbstracts = Array(repeating: [Double](), count: queries.count)
        if peers.hasRecoll {
            for (index, query) in queries.enumerated() {
                recollAbstracts[index].append(try peers.recollq(query.recoll, abstracts: true).0)
            }
        }
        if peers.hasPdfgrep {
            for _ in 0..<pdfgrepRuns {
                for (index, query) in queries.enumerated() {
                    let (seconds, lines) = try peers.pdfgrep(query.pdfgrep)
                    pdfgrep[index].append(seconds)
                    pdfgrepLines[index] = lines
                }
            }
        }
        var summary = ResultTable(
            title: "Query latency: \(queries.count) queries, all runs pooled",
            columns: ["tool", "p50", "p99", "mean", "runs"])
        var p50: [String: Double] = [:]
        for (name, key, samples) in [
            ("cipherdex (library, warm store, previews on)", "cipherdex", cipherdex),
            ("recollq (child process per query)", "recollq", recoll),
            ("recollq -A (with abstracts, its previews; 1 run per query)", "recollq -A", recollAbstracts),
            ("pdfgrep -r -i (no index)", "pdfgrep", pdfgrep),
        ] {
            let all = samples.flatMap { $0 }
            guard !all.isEmpty else { continue }
            p50[key] = Bench.percentile(all, 50)
            summary.add([
                name, Bench.ms(p50[key]!), Bench.ms(Bench.percentile(all, 99)),
                Bench.ms(all.reduce(0, +) / Double(all.count)), "\(all.count)",
            ])
        }
        var perQuery = ResultTable(
            title: "Per query: median time and what each tool found",
            columns: ["kind", "query", "cipherdex", "pages (docs)", "recollq", "docs", "pdfgrep", "lines"])
        for (index, query) in queries.enumerated() {
            perQuery.add([
                query.kind, "`\(query.cipherdex)`", Bench.ms(Bench.median(cipherdex[index])),
                "\(found[index].pages) (\(found[index].documents))",
                recoll[index].isEmpty ? "–" : Bench.ms(Bench.median(recoll[index])),
                recollFound[index].map(String.init) ?? "–",
                pdfgrep[index].isEmpty ? "–" : Bench.ms(Bench.median(pdfgrep[index])),
                pdfgrep[index].isEmpty ? "–" : "\(pdfgrepLines[index])",
            ])
        }
        return Outcome(summary: summary, perQuery: perQuery, p50: p50)
    }

    /// Checks that every page's `ref…` word finds exactly that page (whole-word search), and
    /// that the list's `ref…` queries do with the default (prefix) options. A description.
    static func checkReferences(corpus: SampleCorpus, store path: String, queries: [BenchQuery]) throws -> String {
        let store = try Store.open(CipherdexIndexer.configuration(path))
        defer { store.close() }
        var exact = SearchOptions()
        exact.exactWordsOnly = true
        var failures: [String] = []
        var checked = 0
        for (documentIndex, document) in corpus.documents.enumerated() {
            for pageIndex in document.pages.indices {
                let word = SampleCorpus.reference(document: documentIndex, page: pageIndex)
                let results = try store.library.search(word, options: exact)
                checked += 1
                if results.documents != [document.fileName: [pageIndex]] { failures.append(word) }
            }
        }
        var listed = 0
        for query in queries {
            guard let expected = query.expectedPage else { continue }
            listed += 1
            let results = try store.library.search(query.cipherdex)
            if results.documents != [expected.file: [expected.page]] || results.previews.count != 1 {
                failures.append(query.cipherdex + " (default options)")
            }
        }
        let verdict = failures.isEmpty ? "OK" : "FAILED for \(failures.prefix(10).joined(separator: ", "))"
        return
            "\(verdict): \(checked - failures.filter { !$0.contains(" ") }.count)/\(checked) `ref…` words (whole-word search) and \(listed - failures.filter { $0.contains(" ") }.count)/\(listed) listed `ref…` queries (default prefix search) found exactly their one page"
    }
}
