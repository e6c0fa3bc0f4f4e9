import Dispatch
import Synchronization

/// The rows of a phrase from one docid on (`FTS4Postings.phraseMatches(_:splitAt:)`), counted by
/// whichever thread claims them first: a helper, or the calling thread once it has counted its
/// own rows and finds that no helper started (on a busy machine its turn can come late), so it
/// never waits for a helper that has not begun.
///
/// The helper's windows first move past the rows below `start` (`PhraseWindow.skip`: each list's
/// extent is checked, its positions not decoded), which costs a few percent of counting them;
/// each thread counts half the docid range (`callerShare`; 0.58 measured no better). `"of the"`
/// at 1,000,000 pages: BENCHMARKS.md, "Previews on two threads".
final class PhraseHalf: Sendable {
    /// Below this docid range a phrase is counted on one thread (four windows, 32,768 docids).
    static let fromDocids = 4 * Int64(PhraseWindow.size)
    /// The share of the docid range the calling thread counts.
    static let callerShare = 0.5

    private let doclists: [PhraseWindow.Doclists]
    private let start: Int64
    private let highest: Int64
    private let claimed = Atomic<Bool>(false)
    /// What the claiming thread counted (nil inside: a doclist refused).
    private let counted = Mutex<FTS4Postings.Matches??>(nil)
    /// Signalled once the helper has counted, when it claimed the rows.
    private let done = DispatchSemaphore(value: 0)

    /// The rows from `start` on of a phrase whose tokens' doclists (sealed) are `doclists`, in
    /// a table whose highest docid is `highest`.
    init(_ doclists: [PhraseWindow.Doclists], from start: Int64, highest: Int64) {
        self.doclists = doclists
        self.start = start
        self.highest = highest
    }

    /// The helper's part: counts the rows unless the calling thread already took them.
    func countIfUnclaimed() {
        guard claim() else { return }
        let matches = count()
        counted.withLock { $0 = .some(matches) }
        done.signal()
    }

    /// The rows' matches (nil: a doclist refused): counted here when no helper claimed them,
    /// else the helper's, once it is done.
    func result() -> FTS4Postings.Matches? {
        if claim() { return count() }
        done.wait()
        return counted.withLock { $0 ?? nil }
    }

    private func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    private func count() -> FTS4Postings.Matches? {
        let windows = doclists.map(PhraseWindow.init)
        for window in windows { guard window.skip(below: start) else { return nil } }
        return FTS4Postings.phraseMatches(windows, through: highest)
    }
}
