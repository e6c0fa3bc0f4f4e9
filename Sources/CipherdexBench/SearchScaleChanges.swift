import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The parts of issue 12's suite about change (`search-scale --changes`): a search during bulk
/// indexing (in the library: a store is locked to one process, so another process would get
/// `storeLocked`), then re-indexing 1% of the documents and removing 1% with the CLI, against
/// the full `cipherdex index` time, and what the removal gives back.
enum SearchScaleChanges {
    /// Indexes a hard-linked copy of `corpus` into a new store while querying it, then changes
    /// and removes 1% of the documents; the tables.
    static func run(
        corpus: String, directory: String, executable: String, keyFile: String, queries: [BenchQuery],
        fullIndexSeconds: Double?, log: (String) -> Void
    ) throws -> [ResultTable] {
        let folder = directory + "/changes-corpus"
        let store = directory + "/changes-store"
        try? FileManager.default.removeItem(atPath: folder)
        try? FileManager.default.removeItem(atPath: store)
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: store)
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { $0.hasSuffix(".pdf") }.sorted()
        for name in names where link(corpus + "/" + name, folder + "/" + name) != 0 {
            throw BenchError.failed("link \(name): \(String(cString: strerror(errno)))")
        }

        log("indexing \(names.count) PDFs in the library while searching")
        var during: [Double] = []
        var indexingSeconds = 0.0
        do {
            let opened = try Store.open(CipherdexIndexer.configuration(store))
            defer { opened.close() }
            let start = Bench.now()
            _ = try opened.library.sync(folder: folder)
            var position = 0
            while opened.library.isIndexing {
                let query = queries[position % queries.count].cipherdex
                during.append(try Bench.time { _ = try opened.library.search(query) })
                position += 1
                usleep(20_000)
            }
            try opened.library.waitUntilIndexed()
            indexingSeconds = Bench.now() - start
        }
        var duringTable = ResultTable(
            title:
                "Search during bulk indexing: \(names.count) PDFs indexed in the library, the query mix in turn on the same store",
            columns: ["indexing time", "searches", "p50", "p99", "max"])
        duringTable.add([
            String(format: "%.1f s", indexingSeconds), "\(during.count)",
            during.isEmpty ? "–" : Bench.ms(Bench.percentile(during, 50)),
            during.isEmpty ? "–" : Bench.ms(Bench.percentile(during, 99)), during.max().map(Bench.ms) ?? "–",
        ])

        // 1% of the documents get another document's content (a new file each: a new inode, so
        // the original corpus is untouched), then 1% are deleted.
        let count = max(1, names.count / 100)
        for index in 0..<count {
            let target = folder + "/" + names[index]
            unlink(target)
            try FileManager.default.copyItem(atPath: corpus + "/" + names[names.count - 1 - index], toPath: target)
        }
        func index() throws -> ChildProcess.Measurement {
            let measured = try ChildProcess.run([executable, "index", store, folder, "--key-file", keyFile])
            guard measured.status == 0 else { throw BenchError.failed("cipherdex index (changes)") }
            return measured
        }
        log("re-indexing \(count) changed documents")
        let sizeBefore = SearchPeers.directorySize(store)
        let changed = try index()
        let sizeChanged = SearchPeers.directorySize(store)
        log("removing \(count) documents")
        for index in 0..<count { unlink(folder + "/" + names[names.count / 2 + index]) }
        let removed = try index()
        let sizeRemoved = SearchPeers.directorySize(store)
        let (pages, free) = try pageCounts(store)

        var changes = ResultTable(
            title: "Changing and removing 1% (\(count) of \(names.count) documents) with `cipherdex index`",
            columns: [
                "step", "time", "share of the full `cipherdex index`", "peak RSS", "store size after",
                "free pages after",
            ])
        func share(_ seconds: Double) -> String {
            fullIndexSeconds.map { String(format: "%.1f%%", 100 * seconds / $0) } ?? "–"
        }
        changes.add(["before", "–", "–", "–", SearchPeers.mebibytes(sizeBefore), "–"])
        changes.add([
            "\(count) changed", String(format: "%.2f s", changed.seconds), share(changed.seconds),
            SearchPeers.mebibytes(changed.peakRSS), SearchPeers.mebibytes(sizeChanged), "–",
        ])
        changes.add([
            "\(count) removed", String(format: "%.2f s", removed.seconds), share(removed.seconds),
            SearchPeers.mebibytes(removed.peakRSS), SearchPeers.mebibytes(sizeRemoved),
            "\(free) of \(pages) (\(SearchPeers.mebibytes(UInt64(free) * 16384)))",
        ])
        return [duringTable, changes]
    }

    /// The database's page count and free-list length.
    private static func pageCounts(_ path: String) throws -> (Int, Int) {
        let opened = try Store.open(CipherdexIndexer.configuration(path))
        defer { opened.close() }
        return try opened.read { db in
            (
                Int(try db.scalar("PRAGMA page_count")?.integerValue ?? 0),
                Int(try db.scalar("PRAGMA freelist_count")?.integerValue ?? 0)
            )
        }
    }
}
