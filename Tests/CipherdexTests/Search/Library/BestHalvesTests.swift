import XCTest

@testable import Cipherdex

/// `TopHits.best` on two threads (`BestHalves`) and by score alone (`rowsScoreAboveZero`) chooses
/// what one thread going through every row chooses.
final class BestHalvesTests: XCTestCase {
    /// Each half's `best` joined is the whole rows' `best`, wherever the rows are cut: scores in
    /// random order with many ties, ascending and descending runs, every rank from none to more
    /// than the rows, and ceilings that leave all, some or none.
    func testHalvesJoinedChooseWhatOnePassChooses() {
        var generator = SearchTokenizerEquivalenceTests.SplitMix(state: 33)
        for round in 0..<60 {
            let count = Int.random(in: 0...2_000, using: &generator)
            var scores = (0..<count).map { _ in
                Double(Int.random(in: 0...(round % 2 == 0 ? 12 : 100_000), using: &generator))
            }
            if round % 5 == 3 { scores.sort() }
            if round % 5 == 4 { scores.sort(by: >) }
            scores.withUnsafeBufferPointer { buffer in
                let kept = TopHits.KeptScores(scores: buffer)
                for rank in [0, 1, 2, 7, 100, 500, count, count + 1] {
                    for ceiling in [Double.infinity, 6, 50_000, -1] {
                        let whole = TopHits.best(kept, rank: rank, below: ceiling, in: 0..<count)
                        for cut in [0, count / 3, count / 2, count] {
                            let joined = BestHalves.join(
                                TopHits.best(kept, rank: rank, below: ceiling, in: 0..<cut),
                                TopHits.best(kept, rank: rank, below: ceiling, in: cut..<count), rank: rank)
                            let label = "round \(round), rank \(rank), ceiling \(ceiling), cut \(cut)"
                            XCTAssertEqual(joined.floor, whole.floor, label)
                            XCTAssertEqual(joined.chosen.map(\.index), whole.chosen.map(\.index), label)
                            XCTAssertEqual(joined.chosen.map(\.score), whole.chosen.map(\.score), label)
                        }
                    }
                }
            }
        }
    }

    /// Enough slots for two threads: `best` runs the halves (the upper on a helper, or on the
    /// caller when no helper has started) and gives one thread's floor and rows, for a rank that
    /// many rows tie at and one larger than the rows.
    func testManySlotsOnTwoThreadsChooseWhatOneThreadChooses() {
        var generator = SearchTokenizerEquivalenceTests.SplitMix(state: 34)
        let count = BestHalves.fromRows + 1_001
        let hits = (0..<count).map { _ in
            Int.random(in: 0..<3, using: &generator) == 0 ? 0 : UInt32.random(in: 1...3, using: &generator)
        }
        let lengths = (0..<count).map { _ in UInt32.random(in: 0...40, using: &generator) }
        hits.withUnsafeBufferPointer { hits in
            lengths.withUnsafeBufferPointer { lengths in
                let scores = TopHits.SlotScores(
                    scorer: BM25.RowScorer(rows: UInt32(count), average: 20, documents: [200_000]), hits: hits,
                    lengths: lengths)
                let rows = hits.filter { $0 > 0 }.count
                for rank in [1, 500, 5_000, rows + 1] {
                    let one = TopHits.best(scores, rank: rank, below: .infinity, in: 0..<count)
                    XCTAssertTrue(
                        BestHalves.applies(rows: count, rank: rank) || ProcessInfo.processInfo.activeProcessorCount == 1
                    )
                    let two = TopHits.best(scores, rank: rank, below: .infinity)
                    XCTAssertEqual(two.floor, one.floor, "rank \(rank)")
                    XCTAssertEqual(two.chosen.map(\.index), one.chosen.map(\.index), "rank \(rank)")
                    XCTAssertEqual(two.chosen.map(\.score), one.chosen.map(\.score), "rank \(rank)")
                    XCTAssertGreaterThan(one.chosen.count, 0)
                }
                XCTAssertEqual(TopHits.best(scores, rank: rows + 1, below: .infinity).chosen.count, rows)
            }
        }
    }

    /// Slots told from rows by their score alone give the rows `isRow` gives; a scorer whose idf
    /// is not above 0 (a phrase in more rows than the table counts: a damaged `%_stat`) scores a
    /// row 0 or less, so its slots are told by `isRow` again and such rows are still chosen.
    func testSlotsToldByScoreAreTheRowsIsRowTells() {
        var generator = SearchTokenizerEquivalenceTests.SplitMix(state: 35)
        for (tableRows, documents) in [(UInt32(5_000), UInt32(1_200)), (5_000, 5_000), (100, 6_000)] {
            let count = 3_000
            let hits = (0..<count).map { _ in
                Int.random(in: 0..<3, using: &generator) == 0 ? 0 : UInt32.random(in: 1...4, using: &generator)
            }
            let lengths = (0..<count).map { _ in UInt32.random(in: 0...900, using: &generator) }
            hits.withUnsafeBufferPointer { hits in
                lengths.withUnsafeBufferPointer { lengths in
                    let scorer = BM25.RowScorer(rows: tableRows, average: 300, documents: [documents])
                    let scores = TopHits.SlotScores(scorer: scorer, hits: hits, lengths: lengths)
                    XCTAssertEqual(scores.rowsScoreAboveZero, documents <= tableRows, "\(tableRows), \(documents)")
                    // The reference: the rows `isRow` tells, their scores kept.
                    let rows = (0..<count).filter { scores.isRow($0) }
                    let kept = rows.map { scores.score($0) }
                    kept.withUnsafeBufferPointer { kept in
                        for rank in [1, 10, 400, rows.count, rows.count + 5] {
                            let expected = TopHits.best(TopHits.KeptScores(scores: kept), rank: rank, below: .infinity)
                            let chosen = TopHits.best(scores, rank: rank, below: .infinity)
                            let label = "\(tableRows), \(documents), rank \(rank)"
                            XCTAssertEqual(chosen.floor, expected.floor, label)
                            XCTAssertEqual(chosen.chosen.map(\.index), expected.chosen.map { rows[$0.index] }, label)
                        }
                    }
                }
            }
        }
    }
}
