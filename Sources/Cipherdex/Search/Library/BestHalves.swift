import Dispatch
import Foundation
import Synchronization

/// `TopHits.best` of many rows on two threads: the upper half's rows on a helper, the lower
/// half's on the calling thread, and the two results joined. The helper's half is claimed by
/// whichever thread comes to it first, so the caller never waits for a helper that has not
/// started (on a busy machine its turn can come late).
///
/// Joining gives exactly one thread's result. Each half's floor is at most the whole floor (the
/// `rank`-th best of fewer rows is no better), so each half's rows at or above its floor hold
/// every row at or above the whole floor; the whole floor is the `rank`-th best of the two
/// halves' rows together, and the rows kept are theirs at or above it, in row order (the lower
/// half's first). A common word's ranking at 1,000,000 pages spent 2.3–5.8 ms here on one
/// thread (BENCHMARKS.md, "Ranking on two threads").
enum BestHalves {
    /// From this many rows (or slots) on, `best` runs on two threads: below it a helper's
    /// start-up is a large share of the work.
    static let fromRows = 1 << 18

    /// Whether `best` of `rows` rows for `rank` runs on two threads: enough rows, a rank, and
    /// a second processor.
    static func applies(rows: Int, rank: Int) -> Bool {
        rows >= fromRows && rank > 0 && ProcessInfo.processInfo.activeProcessorCount > 1
    }

    /// `TopHits.best(scores, rank:, below:)` with each half of the rows on a thread of its own.
    static func best<Scores: TopHits.RowScores>(_ scores: Scores, rank: Int, below ceiling: Double)
        -> (floor: Double, chosen: [(index: Int, score: Double)])
    {
        let middle = scores.count / 2
        let upper = UpperHalf(Unshared(scores: scores), rank: rank, ceiling: ceiling, range: middle..<scores.count)
        DispatchQueue.global(qos: .userInitiated).async { upper.runIfUnclaimed() }
        let lower = TopHits.best(scores, rank: rank, below: ceiling, in: 0..<middle)
        return join(lower, upper.result(), rank: rank)
    }

    /// The result over both halves' rows from each half's `best` (`lower`'s rows before
    /// `upper`'s).
    static func join(
        _ lower: (floor: Double, chosen: [(index: Int, score: Double)]),
        _ upper: (floor: Double, chosen: [(index: Int, score: Double)]), rank: Int
    ) -> (floor: Double, chosen: [(index: Int, score: Double)]) {
        guard rank > 0 else { return (.infinity, []) }
        let together = lower.chosen + upper.chosen
        guard together.count >= rank else { return (-.infinity, together) }
        // The rank-th best of the rows together, by the same bounded heap (a rank near the
        // number of rows keeps most of them: no sort of them all).
        let floor = together.map(\.score).withUnsafeBufferPointer {
            TopHits.best(TopHits.KeptScores(scores: $0), rank: rank, below: .infinity, in: 0..<$0.count).floor
        }
        return (floor, together.filter { $0.score >= floor })
    }

    /// The rows' scores for the helper: read-only while both threads go through them, and kept
    /// alive by the caller, which waits for the helper (or runs its half itself) before it
    /// returns.
    private struct Unshared<Scores: TopHits.RowScores>: @unchecked Sendable {
        let scores: Scores
    }

    /// The upper half's `best`, run by whichever thread claims it first.
    private final class UpperHalf<Scores: TopHits.RowScores>: Sendable {
        private let scores: Unshared<Scores>
        private let rank: Int
        private let ceiling: Double
        private let range: Range<Int>
        private let claimed = Atomic<Bool>(false)
        private let outcome = Mutex<(floor: Double, chosen: [(index: Int, score: Double)])?>(nil)
        private let done = DispatchSemaphore(value: 0)

        init(_ scores: Unshared<Scores>, rank: Int, ceiling: Double, range: Range<Int>) {
            (self.scores, self.rank, self.ceiling, self.range) = (scores, rank, ceiling, range)
        }

        /// The helper's part: the half's rows, unless the calling thread already took them.
        func runIfUnclaimed() {
            guard claim() else { return }
            let found = run()
            outcome.withLock { $0 = found }
            done.signal()
        }

        /// The half's result: run here when no helper claimed it, else the helper's, once done.
        func result() -> (floor: Double, chosen: [(index: Int, score: Double)]) {
            if claim() { return run() }
            done.wait()
            return outcome.withLock { $0 } ?? run()
        }

        private func claim() -> Bool {
            claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        }

        private func run() -> (floor: Double, chosen: [(index: Int, score: Double)]) {
            TopHits.best(scores.scores, rank: rank, below: ceiling, in: range)
        }
    }
}
