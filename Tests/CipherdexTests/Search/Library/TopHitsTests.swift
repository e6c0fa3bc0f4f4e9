import CipherdexPDFWriter
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Issue 12: only the best rows are described and ranked, with the same results as scoring and
/// sorting every matching row (the search path before).
final class TopHitsTests: XCTestCase {
    private var store: Store!

    override func setUpWithError() throws {
        (store, _) = try SearchLibraryTestSupport.store()
        store.library.configure { $0.extractors["note"] = NoteExtractor() }
        let corpus = SampleCorpus(documentCount: 12, pagesPerDocument: 20, wordsPerPage: 80, seed: 12)
        for (number, document) in corpus.documents.enumerated() {
            // Every third document has annotations: some pages' first line again.
            let lines = document.pages.enumerated().map { index, page in
                // Pages of different lengths, so that scores differ.
                let words = page.split(whereSeparator: \.isWhitespace)
                let text = words.prefix(20 + (index * 7 + number * 3) % 41).joined(separator: " ")
                return number % 3 == 0 && index % 4 == 0 ? text + "\n>> " + text.prefix(120) : text
            }
            try store.library.add(
                data: Data(lines.joined(separator: "\n").utf8), uid: document.fileName + ".note", fileExtension: "note")
        }
        // Identical pages: equal scores, ranked by UID and page.
        for copy in 0..<3 {
            let page = "the patient dose of the record"
            try store.library.add(
                data: Data(Array(repeating: page, count: 8).joined(separator: "\n").utf8), uid: "same-\(copy).note",
                fileExtension: "note")
        }
        store.library.waitUntilIdle()
    }

    override func tearDown() {
        store?.close()
    }

    /// What the search path did before issue 12: every row joined, scored and sorted.
    private func everyRowRanked(_ text: String, options: SearchOptions) throws -> [SearchLibrary.Hit] {
        try store.read { db in
            let compiled = try SearchQuery.parse(text).compiled()
            var (sql, arguments) = compiled.condition(table: "search_text")
            if options.excludeAnnotations { sql += " AND p.kind = 0" }
            if options.excludeDocumentText { sql += " AND p.kind = 1" }
            var hits: [SearchLibrary.Hit] = []
            try db.forEachRow(
                """
                SELECT search_text.docid, matchinfo(search_text, 'pcnalx'), p.uid, p.page_index, p.kind, p.ordinal
                FROM search_text JOIN search_pages p ON p.rowid = search_text.docid WHERE \(sql)
                """, arguments
            ) { row in
                let words = (row[1].blobValue ?? []).withUnsafeBytes { raw in
                    (0..<(raw.count / 4)).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
                }
                hits.append(
                    SearchLibrary.Hit(
                        docid: row[0].integerValue ?? 0, uid: row[2].textValue ?? "",
                        pageIndex: Int(row[3].integerValue ?? 0),
                        isAnnotation: row[4].integerValue == 1, ordinal: Int(row[5].integerValue ?? 0),
                        score: (try? BM25.score(matchInfo: words)) ?? 0, matchInfo: words))
            }
            return SearchLibrary.rankAndLimit(hits, options: options)
        }
    }

    private func selected(_ text: String, options: SearchOptions) throws -> TopHits.Outcome {
        try store.read { db in try TopHits.select(try SearchQuery.parse(text).compiled(), options: options, db: db) }
    }

    func testSameRankedRowsAsRankingEveryRow() throws {
        let queries = [
            "the", "\"of the\"", "patient", "ana*", "patient OR dose", "patient -dose", "patient dose", "record",
            // Sparse rows (lengths looked up by docid) and a single row.
            "ref1x1 OR ref12x20 OR ref6x3", "ref5x5",
        ]
        var compared = 0
        for query in queries {
            for limit in [1, 3, 10, 40, 500] {
                for perDocument in [nil, 1, 2] as [Int?] {
                    for filter in 0..<3 {
                        var options = SearchOptions()
                        options.maximumResults = limit
                        options.maximumResultsPerDocument = perDocument
                        options.excludeAnnotations = filter == 1
                        options.excludeDocumentText = filter == 2
                        let expected = try everyRowRanked(query, options: options)
                        let actual = try selected(query, options: options).hits
                        let label = "\(query) limit \(limit) per document \(perDocument ?? 0) filter \(filter)"
                        XCTAssertEqual(actual.map(\.docid), expected.map(\.docid), label)
                        XCTAssertEqual(actual.map(\.score), expected.map(\.score), label)
                        XCTAssertEqual(actual.map(\.uid), expected.map(\.uid), label)
                        XCTAssertEqual(actual.map(\.pageIndex), expected.map(\.pageIndex), label)
                        XCTAssertEqual(actual.map(\.isAnnotation), expected.map(\.isAnnotation), label)
                        XCTAssertEqual(actual.map(\.ordinal), expected.map(\.ordinal), label)
                        XCTAssertEqual(actual.map(\.matchInfo), expected.map(\.matchInfo), label)
                        compared += expected.count
                    }
                }
            }
        }
        XCTAssertGreaterThan(compared, 3_000)
    }

    func testOnlyTheBestRowsAndTheirTiesAreDescribed() throws {
        var options = SearchOptions()
        options.maximumResults = 10
        let outcome = try selected("court", options: options)
        XCTAssertGreaterThan(outcome.matchedRows, 30)
        XCTAssertEqual(outcome.hits.count, 10)
        XCTAssertLessThan(outcome.describedRows, 20, "the 10 best and their ties, not all \(outcome.matchedRows)")
        // The 24 identical pages tie: all are described, and ranked by UID and page.
        let tied = try selected("\"patient dose of the record\"", options: options)
        XCTAssertEqual(tied.matchedRows, 24)
        XCTAssertEqual(tied.describedRows, 24)
        XCTAssertEqual(
            tied.hits.map(\.uid), Array(repeating: "same-0.note", count: 8) + Array(repeating: "same-1.note", count: 2))
        XCTAssertEqual(tied.hits.map(\.pageIndex), Array(0..<8) + [0, 1])
        // Annotations only: rows are described in rounds until 10 annotations are found.
        options.excludeDocumentText = true
        let annotations = try selected("the", options: options)
        XCTAssertEqual(annotations.hits.count, 10)
        XCTAssertTrue(annotations.hits.allSatisfy(\.isAnnotation))
        XCTAssertLessThanOrEqual(annotations.describedRows, annotations.matchedRows)
    }

    func testThresholdIsTheRankthBestBelowTheCeiling() {
        let scores: [Double] = [3, 1, 2, 5, 4, 5]
        XCTAssertEqual(TopHits.threshold(scores, rank: 1, below: .infinity), 5)
        XCTAssertEqual(TopHits.threshold(scores, rank: 2, below: .infinity), 5)
        XCTAssertEqual(TopHits.threshold(scores, rank: 3, below: .infinity), 4)
        XCTAssertEqual(TopHits.threshold(scores, rank: 2, below: 5), 3)
        XCTAssertEqual(TopHits.threshold(scores, rank: 6, below: .infinity), 1)
        XCTAssertEqual(TopHits.threshold(scores, rank: 7, below: .infinity), -.infinity)
        XCTAssertEqual(TopHits.threshold([], rank: 1, below: .infinity), -.infinity)
    }

    /// `best` in one pass chooses what a second pass over kept scores chooses: every row at or
    /// above the `rank`-th best below the ceiling, ties included, in row order, with its score,
    /// for scores in random order with many ties, ascending and descending runs, and computed
    /// scores (`ComputedScores`) bit for bit equal to `BM25.score` of each row's 'pcnalx' values.
    func testBestInOnePassChoosesWhatTwoPassesChoose() throws {
        var generator = SearchTokenizerEquivalenceTests.SplitMix(state: 21)
        for round in 0..<40 {
            let count = Int.random(in: 0...3_000, using: &generator)
            var scores = (0..<count).map { _ in
                Double(Int.random(in: 0...(round % 2 == 0 ? 20 : 100_000), using: &generator))
            }
            if round % 5 == 3 { scores.sort() }
            if round % 5 == 4 { scores.sort(by: >) }
            for rank in [0, 1, 2, 10, 500, count, count + 1] {
                for ceiling in [Double.infinity, 10, 50_000, -1] {
                    let floor = TopHits.threshold(scores, rank: rank, below: ceiling)
                    let expected = scores.indices.filter { scores[$0] >= floor && scores[$0] < ceiling }
                    let best = scores.withUnsafeBufferPointer {
                        TopHits.best(TopHits.KeptScores(scores: $0), rank: rank, below: ceiling)
                    }
                    XCTAssertEqual(best.floor, floor, "round \(round), rank \(rank), ceiling \(ceiling)")
                    XCTAssertEqual(
                        best.chosen.map(\.index), expected, "round \(round), rank \(rank), ceiling \(ceiling)")
                    XCTAssertEqual(best.chosen.map(\.score), expected.map { scores[$0] })
                    // The floor is the rank-th best below the ceiling.
                    let below = scores.filter { $0 < ceiling }.sorted(by: >)
                    XCTAssertEqual(floor, rank == 0 ? .infinity : rank <= below.count ? below[rank - 1] : -.infinity)
                }
            }
        }
        for phrases in 1...3 {
            let rows = 2_000
            let hits = (0..<(rows * phrases)).map { _ in UInt32.random(in: 0...4, using: &generator) }
            let lengths = (0..<rows).map { _ in UInt32.random(in: 0...900, using: &generator) }
            let documents = (0..<phrases).map { _ in UInt32.random(in: 1...5_000, using: &generator) }
            // Each row's score from its whole 'pcnalx' values (the total hits do not enter BM25).
            let kept = try (0..<rows).map { row in
                var info: [UInt32] = [UInt32(phrases), 1, 5_000, 300, lengths[row]]
                for phrase in 0..<phrases { info += [hits[row * phrases + phrase], 1, documents[phrase]] }
                return try BM25.score(matchInfo: info)
            }
            hits.withUnsafeBufferPointer { hits in
                lengths.withUnsafeBufferPointer { lengths in
                    let computed = TopHits.ComputedScores(
                        scorer: BM25.RowScorer(rows: 5_000, average: 300, documents: documents), hits: hits,
                        lengths: lengths)
                    XCTAssertEqual((0..<rows).map { computed.score($0).bitPattern }, kept.map(\.bitPattern))
                    let best = TopHits.best(computed, rank: 50, below: .infinity)
                    let floor = TopHits.threshold(kept, rank: 50, below: .infinity)
                    XCTAssertEqual(best.chosen.map(\.index), kept.indices.filter { kept[$0] >= floor })
                }
            }
        }
    }
}
