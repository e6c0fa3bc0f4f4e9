import Cipherdex
import CipherdexPDFWriter
import Foundation

/// Issue 5's suite: indexing time, query latency and index size of the search library on a
/// generated corpus, beside `pdftotext` (the extraction floor), `recollindex`/`recollq` (an
/// indexed desktop search) and `pdfgrep` (no index), all on the same files in the same run.
enum SearchSuite {
    static func run(quick: Bool) throws -> String {
        let documentCount = quick ? 20 : 100
        let pagesPerDocument = quick ? 10 : 20
        let rounds = quick ? 1 : 2
        let repetitions = quick ? 3 : 5
        let directory = Bench.scratchDirectory("search")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let folder = directory + "/corpus"
        let corpus = SampleCorpus(documentCount: documentCount, pagesPerDocument: pagesPerDocument)
        try corpus.write(to: folder)
        let pages = corpus.pageCount
        let pdfBytes = SearchPeers.directorySize(folder)
        let peers = SearchPeers(folder: folder, scratch: directory)
        let cores = ProcessInfo.processInfo.activeProcessorCount

        // Indexing: every tool once per round, in turn, so machine noise hits them alike.
        // Beside wall time, the CPU seconds of this process and its reaped children (helpers,
        // pdftotext under xargs, recoll's filters), steadier than wall time on a busy machine.
        var indexing: [String: [Double]] = [:]
        var cpu: [String: [Double]] = [:]
        func measured(_ name: String, _ body: () throws -> Double) rethrows {
            let before = Bench.cpuSeconds()
            indexing[name, default: []].append(try body())
            cpu[name, default: []].append(Bench.cpuSeconds() - before)
        }
        var queryStore = ""
        var notes: [String] = []
        for round in 0..<rounds {
            for (label, extraction) in [
                ("isolated", SearchLibrary.Configuration.PDFExtraction.isolated(IsolatedPDFExtractor.Limits())),
                ("in-process", .inProcess),
            ] {
                let store = directory + "/store-\(label)-\(round)"
                try measured("cipherdex, \(label) extraction") {
                    try CipherdexIndexer.index(folder: folder, store: store, extraction: extraction)
                }
                let indexed = try CipherdexIndexer.indexedPages(store: store)
                guard indexed == pages else {
                    throw BenchError.failed("cipherdex (\(label)) indexed \(indexed) of \(pages) pages")
                }
                if label == "isolated" && round == rounds - 1 {
                    queryStore = store
                } else {
                    try Store.delete(at: store)
                }
            }
            try measured("cipherdex extraction only (in-process, no store)") {
                try CipherdexIndexer.extractOnly(folder: folder, workers: cores)
            }
            if peers.hasPdftotext { try measured("pdftotext") { try peers.pdftotext(round: round) } }
            if peers.hasRecoll { try measured("recollindex") { try peers.recollindex(round: round) } }
        }
        let indexingOrder = [
            "cipherdex, isolated extraction", "cipherdex, in-process extraction",
            "cipherdex extraction only (in-process, no store)", "pdftotext", "recollindex",
        ]
        let median = indexing.mapValues { Bench.median($0) }
        let cpuMedian = cpu.mapValues { Bench.median($0) }
        var indexTable = ResultTable(
            title:
                "Search indexing: \(documentCount) PDFs, \(pages) pages (\(SearchPeers.mebibytes(pdfBytes))), median of \(rounds) alternating round\(rounds == 1 ? "" : "s")",
            columns: ["tool", "time", "pages/s", "vs recollindex", "vs pdftotext", "CPU time", "CPU vs recollindex", "CPU vs pdftotext"])
        for name in indexingOrder {
            guard let seconds = median[name], let cpuSeconds = cpuMedian[name] else { continue }
            indexTable.add([
                name, String(format: "%.2f s", seconds), String(format: "%.0f", Double(pages) / seconds),
                ratio(seconds, median["recollindex"]), ratio(seconds, median["pdftotext"]),
                String(format: "%.2f s", cpuSeconds), ratio(cpuSeconds, cpuMedian["recollindex"]),
                ratio(cpuSeconds, cpuMedian["pdftotext"]),
            ])
        }
        if !peers.hasRecoll { notes.append("recollindex/recollq not installed (scripts/bootstrap --bench): skipped") }
        if !peers.hasPdftotext { notes.append("pdftotext not installed: skipped") }

        // Query latency on the warm store and on recoll's index.
        let queries = BenchQuery.list(for: corpus, pagesPerDocument: pagesPerDocument)
        let latency = try QueryLatency.measure(
            queries: queries, store: queryStore, peers: peers, repetitions: repetitions, pdfgrepRuns: 1)
        let correctness = try QueryLatency.checkReferences(corpus: corpus, store: queryStore, queries: queries)

        // Sizes.
        let storeBytes = SearchPeers.directorySize(queryStore)
        let databaseBytes = SearchPeers.fileSize(queryStore + "/store.db") + SearchPeers.fileSize(queryStore + "/store.db-wal")
        var sizeTable = ResultTable(title: "Index size on disk", columns: ["what", "bytes", "MiB", "vs PDFs"])
        func size(_ name: String, _ bytes: UInt64) {
            sizeTable.add([name, "\(bytes)", SearchPeers.mebibytes(bytes), String(format: "%.2fx", Double(bytes) / Double(pdfBytes))])
        }
        size("the \(documentCount) PDFs", pdfBytes)
        size("cipherdex store directory (all files)", storeBytes)
        size("cipherdex database alone (store.db + WAL)", databaseBytes)
        if peers.hasRecoll { size("recoll index (xapiandb)", peers.recollIndexBytes) }
        try Store.delete(at: queryStore)

        var output = indexTable.markdown + "\n" + latency.summary.markdown + "\n" + latency.perQuery.markdown + "\n" + sizeTable.markdown
        let cipherdexIndex = median["cipherdex, isolated extraction"]!
        let inProcess = median["cipherdex, in-process extraction"]!
        var ratios: [String] = []
        if let recoll = median["recollindex"] {
            ratios.append(
                "indexing cipherdex/recollindex \(Bench.ratio(cipherdexIndex / recoll)) isolated, \(Bench.ratio(inProcess / recoll)) in-process (target ≤ 1.0)")
        }
        if let floor = median["pdftotext"] {
            ratios.append(
                "cipherdex/pdftotext \(Bench.ratio(cipherdexIndex / floor)) isolated, \(Bench.ratio(inProcess / floor)) in-process (target ≤ 1.3)")
        }
        ratios.append("in-process/isolated indexing \(Bench.ratio(inProcess / cipherdexIndex))")
        if let recollCPU = cpuMedian["recollindex"], let floorCPU = cpuMedian["pdftotext"] {
            let isolatedCPU = cpuMedian["cipherdex, isolated extraction"]!
            let inProcessCPU = cpuMedian["cipherdex, in-process extraction"]!
            ratios.append(
                "CPU time: cipherdex/recollindex \(Bench.ratio(isolatedCPU / recollCPU)) isolated, \(Bench.ratio(inProcessCPU / recollCPU)) in-process; cipherdex/pdftotext \(Bench.ratio(isolatedCPU / floorCPU)) isolated, \(Bench.ratio(inProcessCPU / floorCPU)) in-process")
        }
        if let recollP50 = latency.p50["recollq"] {
            ratios.append(
                "query p50 cipherdex/recollq \(Bench.ratio(latency.p50["cipherdex"]! / recollP50)) (target ≤ 0.5)")
        }
        if let abstractsP50 = latency.p50["recollq -A"] {
            ratios.append("query p50 cipherdex/`recollq -A` \(Bench.ratio(latency.p50["cipherdex"]! / abstractsP50))")
        }
        output += "\nsame run: " + ratios.joined(separator: "; ") + "\n"
        output += "\ncorrectness: \(correctness)\n"
        output += "\n" + commands(quick: quick, cores: cores, repetitions: repetitions, rounds: rounds)
        if !notes.isEmpty { output += "\n" + notes.map { "note: " + $0 }.joined(separator: "\n") + "\n" }
        return output
    }

    private static func ratio(_ value: Double, _ base: Double?) -> String {
        base.map { Bench.ratio(value / $0) } ?? "–"
    }

    private static func commands(quick: Bool, cores: Int, repetitions: Int, rounds: Int) -> String {
        """
        command: `swift build -c release && .build/release/cipherdex-bench search\(quick ? " --quick" : "")`; peers, per round or query:
        - cipherdex: `Store.open` (new store, raw key) → `library.configure { $0.pdfExtraction = … }` → `library.sync(folder:)` → `waitUntilIdle()` → `close()`, \(cores) workers (default); extraction only: `PDFTextExtractor` over the files on \(cores) threads, nothing stored
        - pdftotext: `ls *.pdf | xargs -P \(cores) -I{} pdftotext -q {} OUT/{}.txt`
        - recollindex: `recollindex -c CONFDIR` with a fresh CONFDIR whose recoll.conf has `topdirs = <corpus>`, `indexallfilenames = 0`, `noaspell = 1` (no spelling dictionary: Cipherdex builds none)
        - queries: Cipherdex `library.search(q)` with default options (prefix words, previews on, ≤ 500 results) on the warm store; `recollq -c CONFDIR -n 500 'q'` as a child process per query (its in-process query cost is unknown: process start and opening the Xapian index are included; it lists documents without text, while Cipherdex cuts a preview for each of up to 500 pages), and once with `-A` (abstracts, the nearest thing to previews); `pdfgrep -r -i 'regex' <corpus>` (no index, \(1) run per query); Cipherdex and recollq \(repetitions) runs per query, alternating
        """ + "\n"
    }
}

/// Drives the Cipherdex library for the suite.
enum CipherdexIndexer {
    static let keyBytes = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 5) }
    static var configuration: (String) -> StoreConfiguration {
        { path in StoreConfiguration(path: path, keyProvider: { try EncryptionKey.raw(keyBytes) }) }
    }

    /// Seconds from opening a new store to closing it with the folder indexed.
    static func index(folder: String, store path: String, extraction: SearchLibrary.Configuration.PDFExtraction) throws -> Double {
        try Bench.time {
            let store = try Store.open(configuration(path))
            store.library.configure { $0.pdfExtraction = extraction }
            _ = try store.library.sync(folder: folder)
            store.library.waitUntilIdle()
            store.close()
        }
    }

    /// Pages of the documents indexed in the store (failed documents count none).
    static func indexedPages(store path: String) throws -> Int {
        let store = try Store.open(configuration(path))
        defer { store.close() }
        return try store.library.statuses().reduce(0) { total, entry in
            if case .finished(let count) = entry.status { return total + count }
            return total
        }
    }

    /// Seconds to extract every PDF in the folder in this process on `workers` threads.
    static func extractOnly(folder: String, workers: Int) throws -> Double {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".pdf") }.sorted()
        let next = NSLock()
        nonisolated(unsafe) var index = 0
        nonisolated(unsafe) var failures = 0
        let seconds = Bench.time {
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while true {
                    let file: String? = next.withLock {
                        defer { index += 1 }
                        return index < files.count ? files[index] : nil
                    }
                    guard let file else { return }
                    let data = FileManager.default.contents(atPath: folder + "/" + file) ?? Data()
                    if (try? PDFTextExtractor().extract(data: [UInt8](data), password: nil)) == nil {
                        next.withLock { failures += 1 }
                    }
                }
            }
        }
        guard failures == 0 else { throw BenchError.failed("extraction of \(failures) files") }
        return seconds
    }
}
