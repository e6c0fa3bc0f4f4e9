import Dispatch
import Synchronization

/// A point inside blocking work where the work waits, the first time it gets there, until the
/// test has done something (cancelled the awaiting task): a cancellation at a known instant.
final class WorkGate: Sendable {
    private let arrived = Atomic<Bool>(false)
    private let released = DispatchSemaphore(value: 0)

    /// Called by the work: the first call says it got here and waits for the test; later calls
    /// pass at once.
    func pass() {
        guard !arrived.exchange(true, ordering: .acquiringAndReleasing) else { return }
        released.wait()
    }

    /// Waits until the work is at the gate, runs `body`, then lets the work go on.
    func whenReached(_ body: () -> Void) async throws {
        while !arrived.load(ordering: .acquiring) { try await Task.sleep(nanoseconds: 1_000_000) }
        body()
        released.signal()
    }
}
