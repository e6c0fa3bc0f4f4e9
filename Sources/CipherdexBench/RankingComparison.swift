import Cipherdex
import Foundation

/// Issue 12's before/after of the ranking stage alone, in this process on an open store: the
/// path before (every matching row joined with `search_pages`, scored and sorted) beside
/// `TopHits` (only the best rows described) through FTS4's cursor and with FTS4's segments read
/// directly, with the FTS4 scan alone as a reference, and a check that the direct `TopHits` and
/// the path before keep the same rows with the same scores in the same order.
enum RankingComparison {
    /// Times the ranking stage of each query `runs` times both ways on the open store; the table
    /// and whether every query kept the same rows, scores and order.
    static func measure(store: Store, queries: [BenchQuery], runs: Int) throws -> (table: ResultTable, identical: Bool)
    {
        var table = ResultTable(
            title: "Ranking stage alone (no previews), library, warm, median of \(runs), best 500",
            columns: [
                "query", "matching rows", "FTS4 docids only", "FTS4 + matchinfo 'pcx'", "FTS4 + matchinfo 'pcnalx'",
                "every row ranked (before)", "TopHits through FTS4", "TopHits, segments read directly (now)",
                "rows described",
                "same ranked rows",
            ])
        var allIdentical = true
        for query in queries {
            let compiled = try SearchQuery.parse(query.cipherdex).compiled()
            var scan: [Double] = []
            var docidsOnly: [Double] = []
            var withoutLengths: [Double] = []
            var before: [Double] = []
            var after: [Double] = []
            var throughFTS4: [Double] = []
            var legacy: [(docid: Int64, score: Double)] = []
            var outcome: TopHits.Outcome?
            for _ in 0..<runs {
                try store.read { db in
                    docidsOnly.append(try Bench.time { _ = try scanOnly(compiled, columns: "docid", db: db) })
                    withoutLengths.append(
                        try Bench.time {
                            _ = try scanOnly(compiled, columns: "docid, matchinfo(search_text, 'pcx')", db: db)
                        })
                    scan.append(
                        try Bench.time {
                            _ = try scanOnly(compiled, columns: "docid, matchinfo(search_text, 'pcnalx')", db: db)
                        })
                    before.append(try Bench.time { legacy = try everyRowRanked(compiled, limit: 500, db: db) })
                    throughFTS4.append(
                        try Bench.time {
                            _ = try TopHits.select(compiled, options: SearchOptions(), db: db, directPostings: false)
                        })
                    after.append(
                        try Bench.time { outcome = try TopHits.select(compiled, options: SearchOptions(), db: db) })
                }
            }
            let ranked = outcome?.ranked ?? []
            let identical =
                ranked.count == legacy.count
                && zip(ranked, legacy).allSatisfy { $0.docid == $1.docid && $0.score == $1.score }
            allIdentical = allIdentical && identical
            table.add([
                "`\(query.cipherdex)`", "\(outcome?.matchedRows ?? 0)", Bench.ms(Bench.median(docidsOnly)),
                Bench.ms(Bench.median(withoutLengths)), Bench.ms(Bench.median(scan)),
                Bench.ms(Bench.median(before)), Bench.ms(Bench.median(throughFTS4)), Bench.ms(Bench.median(after)),
                "\(outcome?.describedRows ?? 0)",
                identical ? "yes" : "NO",
            ])
        }
        return (table, allIdentical)
    }

    /// Steps through the matching rows selecting `columns`, reading nothing: the FTS4 floor.
    private static func scanOnly(_ compiled: CompiledSearchQuery, columns: String, db: Connection) throws -> Int {
        let (condition, arguments) = compiled.condition(table: "search_text")
        var rows = 0
        try db.forEachRowView("SELECT \(columns) FROM search_text WHERE \(condition)", arguments) { _ in rows += 1 }
        return rows
    }

    /// The ranking before issue 12: every row joined, scored and sorted, then the first `limit`.
    private static func everyRowRanked(
        _ compiled: CompiledSearchQuery, limit: Int, db: Connection
    ) throws -> [(docid: Int64, score: Double)] {
        struct Row {
            let docid: Int64
            let uid: String
            let page: Int
            let score: Double
            let info: [UInt32]
        }
        let (condition, arguments) = compiled.condition(table: "search_text")
        var rows: [Row] = []
        try db.forEachRow(
            """
            SELECT search_text.docid, matchinfo(search_text, 'pcnalx'), p.uid, p.page_index, p.kind, p.ordinal
            FROM search_text JOIN search_pages p ON p.rowid = search_text.docid WHERE \(condition)
            """, arguments
        ) { row in
            let info = row[1].blobValue ?? []
            let words = info.withUnsafeBytes { raw in
                (0..<(raw.count / 4)).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
            }
            rows.append(
                Row(
                    docid: row[0].integerValue ?? 0, uid: row[2].textValue ?? "", page: Int(row[3].integerValue ?? 0),
                    score: (try? BM25.score(matchInfo: words)) ?? 0, info: words))
        }
        rows.sort {
            if $0.score != $1.score { return $0.score > $1.score }
            if $0.uid != $1.uid { return $0.uid < $1.uid }
            if $0.page != $1.page { return $0.page < $1.page }
            return $0.docid < $1.docid
        }
        return rows.prefix(limit).map { ($0.docid, $0.score) }
    }
}
