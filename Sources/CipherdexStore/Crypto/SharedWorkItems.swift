import Dispatch
import Synchronization

/// Items of one piece of work (chunks to seal or open, leaves to hash) that any number of
/// threads take from one counter, and the wait for all of them to be done.
///
/// The caller drains too, and then waits only for items another thread has taken and not yet
/// finished — never for a helper that has not started (on a busy machine the helper's turn can
/// come long after the caller took every item itself). A helper that starts late finds nothing
/// left and touches no item, so the inputs may be gone by then.
final class SharedWorkItems: Sendable {
    /// How many items there are.
    let count: Int
    private let next = Atomic<Int>(0)
    private let finished = Atomic<Int>(0)
    /// Signalled once, by whichever thread finishes the last item.
    private let allFinished = DispatchSemaphore(value: 0)

    init(count: Int) {
        self.count = count
    }

    /// The next item to work on, or nil when every item is taken. Call `finish()` after it.
    func take() -> Int? {
        guard next.load(ordering: .relaxed) < count else { return nil }
        let item = next.add(1, ordering: .relaxed).oldValue
        return item < count ? item : nil
    }

    /// Marks one taken item done; its results are visible to `waitUntilFinished()`'s caller.
    func finish() {
        if finished.add(1, ordering: .acquiringAndReleasing).newValue == count { allFinished.signal() }
    }

    /// Returns once every item is finished (at once when the caller finished the last one).
    func waitUntilFinished() {
        guard count > 0, finished.load(ordering: .acquiring) < count else { return }
        allFinished.wait()
        // The item counts never go back, so the signal is not needed again.
    }
}
