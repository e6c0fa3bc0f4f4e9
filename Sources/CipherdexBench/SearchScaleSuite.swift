import Cipherdex
import CipherdexPDFWriter
import Foundation

/// Issue 12's suite, `cipherdex-bench search-scale [--pages N] [--work DIR] [--runs R]`: a
/// generated corpus of N pages (N/100 PDFs of 100 pages), indexed by the `cipherdex` CLI and by
/// `recollindex` (each a child process: time and peak RSS), then a query mix run one process
/// per query for both tools with the same result cap (500), beside the warm in-library figure.
/// With `--work DIR` the corpus, the store and recoll's index are kept there and reused by the
/// next run (indexing is then not measured again).
enum SearchScaleSuite {
    /// The query mix: common, phrase, rare, prefix, OR, exclusion and a one-page word.
    static func queries(documents: Int) -> [BenchQuery] {
        // The last page's word: no other reference begins with it (prefix matching finds one page).
        let reference = SampleCorpus.reference(document: max(documents / 2, 1) - 1, page: 99)
        return [
            BenchQuery("common", "the"),
            BenchQuery("phrase", "\"of the\""),
            BenchQuery("common", "patient"),
            BenchQuery("prefix", "ana*"),
            BenchQuery("AND", "patient dose"),
            BenchQuery("OR", "patient OR dose"),
            BenchQuery("exclusion", "patient -dose"),
            BenchQuery("least frequent word", "settlement"),
            BenchQuery("one page", reference),
        ]
    }

    /// Parses `search-scale [--pages N] [--work DIR] [--runs R] [--changes] [--cli PATH]`, runs
    /// the suite and prints its markdown; the exit status. `--cli` names the `cipherdex` binary
    /// measured (default: the one beside this benchmark; `make install` builds the installed one
    /// with the Swift runtime linked in, `.build/static/release/cipherdex`).
    static func main(_ arguments: [String]) -> Int32 {
        var pages = 100_000
        var work: String?
        var runs = 5
        var changes = false
        var cli: String?
        var index = 1
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch arguments[index] {
            case "--changes":
                changes = true
                index += 1
                continue
            case "--pages": pages = value.flatMap { Int($0) } ?? pages
            case "--work": work = value
            case "--runs": runs = value.flatMap { Int($0) } ?? runs
            case "--cli": cli = value
            default:
                FileHandle.standardError.write(
                    Data(
                        "usage: cipherdex-bench search-scale [--pages N] [--work DIR] [--runs R] [--changes] [--cli PATH]\n"
                            .utf8))
                return 64
            }
            index += 2
        }
        do {
            print(try run(pages: max(pages, 100), work: work, runs: max(runs, 1), changes: changes, cli: cli))
            return 0
        } catch {
            FileHandle.standardError.write(Data("cipherdex-bench: error: \(error)\n".utf8))
            return 1
        }
    }

    /// Generates (or reuses) the corpus, indexes it with both tools (unless reused), runs the
    /// query mix and returns the markdown tables.
    static func run(pages: Int, work: String?, runs: Int, changes: Bool = false, cli: String? = nil) throws -> String {
        let documents = pages / 100
        let directory = work ?? Bench.scratchDirectory("search-scale")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { if work == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let folder = directory + "/corpus-\(documents)x100"
        let store = directory + "/store-\(documents)x100"
        let keyFile = directory + "/key"
        let executable =
            cli ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/cipherdex"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError.failed("\(executable) not built (swift build -c release --product cipherdex)")
        }
        try Data(CipherdexIndexer.keyBytes).write(to: URL(fileURLWithPath: keyFile))
        var lines: [String] = []
        func log(_ text: String) { FileHandle.standardError.write(Data("search-scale: \(text)\n".utf8)) }

        var generated = "reused"
        if !FileManager.default.fileExists(atPath: folder + String(format: "/doc-%04d.pdf", documents)) {
            log("generating \(documents) PDFs of 100 pages")
            generated = String(
                format: "%.1f s",
                try Bench.time {
                    try SampleCorpus(documentCount: documents, pagesPerDocument: 100).write(to: folder)
                })
        }
        let pdfBytes = SearchPeers.directorySize(folder)
        let peers = SearchPeers(folder: folder, scratch: directory)

        var indexing = ResultTable(
            title: "Indexing \(documents) PDFs, \(documents * 100) pages (\(SearchPeers.mebibytes(pdfBytes)))",
            columns: ["tool", "time", "peak RSS", "index size"])
        var fullIndexSeconds: Double?
        var indexPeakRSS: UInt64?
        var recollSeconds: Double?
        if !FileManager.default.fileExists(atPath: store) {
            log("indexing with cipherdex")
            let create = try ChildProcess.run([executable, "create", store, "--key-file", keyFile], measureRSS: false)
            guard create.status == 0 else { throw BenchError.failed("cipherdex create") }
            let measured = try ChildProcess.run([executable, "index", store, folder, "--key-file", keyFile])
            guard measured.status == 0 else { throw BenchError.failed("cipherdex index") }
            fullIndexSeconds = measured.seconds
            indexPeakRSS = measured.peakRSS
            indexing.add([
                "`cipherdex index`", String(format: "%.1f s", measured.seconds),
                SearchPeers.mebibytes(measured.peakRSS),
                SearchPeers.mebibytes(SearchPeers.directorySize(store)),
            ])
        } else {
            indexing.add(["`cipherdex index`", "reused", "–", SearchPeers.mebibytes(SearchPeers.directorySize(store))])
        }
        var recollReady = false
        if peers.hasRecoll {
            let config = directory + "/recoll-0"
            if FileManager.default.fileExists(atPath: config + "/xapiandb") {
                peers.reuseRecoll(config: config)
                indexing.add(["`recollindex`", "reused", "–", SearchPeers.mebibytes(peers.recollIndexBytes)])
            } else {
                log("indexing with recollindex")
                let (seconds, rss) = try peers.recollindexMeasured(round: 0)
                recollSeconds = seconds
                indexing.add([
                    "`recollindex`", String(format: "%.1f s", seconds), SearchPeers.mebibytes(rss),
                    SearchPeers.mebibytes(peers.recollIndexBytes),
                ])
            }
            recollReady = true
        }

        log("queries")
        let mix = queries(documents: documents)
        var cipherdexProcess = Array(repeating: [Double](), count: mix.count)
        // `--no-previews`: a ranked list of pages without text, as `recollq -n 500` lists
        // documents without text (its abstracts need `-A`).
        var bareProcess = Array(repeating: [Double](), count: mix.count)
        var recollProcess = Array(repeating: [Double](), count: mix.count)
        var recollFound = Array(repeating: Int?.none, count: mix.count)
        var cipherdexFound = Array(repeating: 0, count: mix.count)
        let output = directory + "/search.out"
        for round in 0...runs {  // round 0 warms the page cache for both and is not counted
            for (position, query) in mix.enumerated() {
                let arguments = [
                    executable, "search", store, "--limit", "500", "--key-file", keyFile, "--", query.cipherdex,
                ]
                let measured = try ChildProcess.run(arguments, stdoutPath: output, measureRSS: false)
                guard measured.status == 0 else { throw BenchError.failed(arguments.joined(separator: " ")) }
                if round > 0 { cipherdexProcess[position].append(measured.seconds) }
                let bareArguments = arguments.dropLast(2) + ["--no-previews", "--", query.cipherdex]
                let bare = try ChildProcess.run(Array(bareArguments), stdoutPath: output, measureRSS: false)
                guard bare.status == 0 else { throw BenchError.failed(bareArguments.joined(separator: " ")) }
                if round > 0 { bareProcess[position].append(bare.seconds) }
                if recollReady {
                    let (seconds, count) = try peers.recollq(query.recoll)
                    if round > 0 { recollProcess[position].append(seconds) }
                    recollFound[position] = count
                }
            }
        }
        var warm = Array(repeating: [Double](), count: mix.count)
        var ranking: (table: ResultTable, identical: Bool)?
        do {
            let opened = try Store.open(CipherdexIndexer.configuration(store))
            defer { opened.close() }
            for (position, query) in mix.enumerated() {
                cipherdexFound[position] = try opened.library.search(query.cipherdex).previews.count
            }
            for _ in 0..<runs {
                for (position, query) in mix.enumerated() {
                    warm[position].append(try Bench.time { _ = try opened.library.search(query.cipherdex) })
                }
            }
            ranking = try RankingComparison.measure(store: opened, queries: mix, runs: runs)
        }
        var summary = ResultTable(
            title: "Query mix: \(mix.count) queries × \(runs) runs, result cap 500",
            columns: ["tool", "p50", "p99", "mean"])
        var p50: [String: Double] = [:]
        var p99: [String: Double] = [:]
        for (name, samples) in [
            ("`cipherdex search` (process per query)", cipherdexProcess),
            ("`cipherdex search --no-previews` (process per query)", bareProcess),
            ("`recollq -n 500` (process per query)", recollProcess),
            ("cipherdex library, warm (previews on)", warm),
        ] {
            let all = samples.flatMap { $0 }
            guard !all.isEmpty else { continue }
            p50[name] = Bench.percentile(all, 50)
            p99[name] = Bench.percentile(all, 99)
            summary.add([
                name, Bench.ms(p50[name]!), Bench.ms(p99[name]!), Bench.ms(all.reduce(0, +) / Double(all.count)),
            ])
        }
        var perQuery = ResultTable(
            title: "Per query: median of \(runs)",
            columns: [
                "kind", "query", "cipherdex (process)", "cipherdex --no-previews (process)", "recollq (process)",
                "cipherdex (library, warm)",
                "pages found (≤ 500)", "recoll docs",
            ])
        for (position, query) in mix.enumerated() {
            perQuery.add([
                query.kind, "`\(query.cipherdex)`", Bench.ms(Bench.median(cipherdexProcess[position])),
                Bench.ms(Bench.median(bareProcess[position])),
                recollProcess[position].isEmpty ? "–" : Bench.ms(Bench.median(recollProcess[position])),
                Bench.ms(Bench.median(warm[position])), "\(cipherdexFound[position])",
                recollFound[position].map(String.init) ?? "–",
            ])
        }
        lines.append("corpus: generated \(generated); machine: \(ProcessInfo.processInfo.activeProcessorCount) cores")
        lines.append("cli: `\(executable)`")
        var goals: [String] = []
        if let mine = fullIndexSeconds, let theirs = recollSeconds {
            goals.append("time \(Bench.ratio(mine / theirs)) of recollindex's (target ≤ 0.6 at 1,000,000 pages)")
        }
        if let rss = indexPeakRSS {
            goals.append("peak RSS \(SearchPeers.mebibytes(rss)) (target < 256 MiB)")
        }
        if recollReady, peers.recollIndexBytes > 0 {
            let ratio = Double(SearchPeers.directorySize(store)) / Double(peers.recollIndexBytes)
            goals.append("index size \(Bench.ratio(ratio)) of recoll's (target ≤ 1.5)")
        }
        if !goals.isEmpty { lines.append("indexing: " + goals.joined(separator: "; ")) }
        let process = "`cipherdex search` (process per query)"
        let recoll = "`recollq -n 500` (process per query)"
        if let mine = p50[process], let theirs = p50[recoll], let mine99 = p99[process], let theirs99 = p99[recoll] {
            lines.append(
                "cipherdex/recollq: p50 \(Bench.ratio(mine / theirs)) (target ≤ 0.5), p99 \(Bench.ratio(mine99 / theirs99)) (target ≤ 1)"
            )
        }
        let bare = "`cipherdex search --no-previews` (process per query)"
        if let mine = p50[bare], let theirs = p50[recoll], let mine99 = p99[bare], let theirs99 = p99[recoll] {
            lines.append(
                "like for like, neither printing page text: cipherdex --no-previews/recollq: p50 \(Bench.ratio(mine / theirs)), p99 \(Bench.ratio(mine99 / theirs99))"
            )
        }
        lines.append(
            "commands: `cipherdex create STORE --key-file K`, `cipherdex index STORE CORPUS --key-file K` (GNU time for peak RSS); `recollindex -c CONF` (recoll.conf: topdirs, indexallfilenames = 0, noaspell = 1); per query `cipherdex search STORE --limit 500 --key-file K -- Q`, the same with `--no-previews`, and `recollq -c CONF -n 500 Q`, alternating, one warm-up round not counted; library: `library.search(Q)` default options on the open store"
        )
        if let ranking {
            lines.append(
                ranking.identical
                    ? "ranking: TopHits keeps the same rows, scores and order as ranking every row, for every query"
                    : "ranking: TopHits DIFFERS from ranking every row (see the table)")
        }
        var changeTables: [ResultTable] = []
        if changes {
            changeTables = try SearchScaleChanges.run(
                corpus: folder, directory: directory, executable: executable, keyFile: keyFile, queries: mix,
                fullIndexSeconds: fullIndexSeconds, log: log)
            lines.append(
                "changes: a new store indexed in the library (`library.sync(folder:)` on a hard-linked copy of the corpus) while `library.search(Q)` runs the query mix in turn, 20 ms apart; then 1% of the files replaced by copies of others and `cipherdex index STORE FOLDER --key-file K` (GNU time), then 1% deleted and the same command; share = time / the full `cipherdex index` above (this run's, – when reused)"
            )
        }
        let sections =
            [indexing.markdown, summary.markdown, perQuery.markdown, ranking?.table.markdown ?? ""]
            + changeTables.map(\.markdown) + [lines.joined(separator: "\n\n")]
        return sections.joined(separator: "\n") + "\n"
    }
}
