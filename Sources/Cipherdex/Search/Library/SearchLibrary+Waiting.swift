import Foundation
import Synchronization

/// A wait for the library's queue, kept in `SearchLibrary.queueWaiters` and settled where the
/// queue's state changes (`stateChanged()`): no thread sleeps for an async wait, however many
/// tasks wait.
struct QueueWaiter: Sendable {
    /// What the wait is for.
    enum Goal: Sendable {
        /// Nothing queued, extracting or being written (or paused with nothing running), or the
        /// library stopped: `waitUntilIdle`.
        case idle
        /// `.idle`, then the index written (`SearchError.indexWriteFailed` otherwise); the store
        /// closing first is `StoreError.closed`: `waitUntilIndexed`.
        case indexed
        /// Every queued document extracted and written (OCR pages are not waited for), or the
        /// library paused or stopped: a closing store's wait (`waitForQueuedDocuments`).
        case queuedDocuments
    }

    let goal: Goal
    /// Receives the wait's result exactly once, with `state` held (a continuation's resume only
    /// schedules its task).
    let resume: @Sendable (Result<Void, any Error>) -> Void
}

/// The result slot of a synchronous wait, filled by `QueueWaiter.resume`.
private final class WaitResult: Sendable {
    let value = Mutex<Result<Void, any Error>?>(nil)
}

extension SearchLibrary {
    // MARK: Synchronous waits

    /// Blocks until nothing is queued, extracting or being written (or the library is paused
    /// with nothing running, or the store closed). Called inside `store.transaction` or
    /// `store.read` on its thread it returns at once: the index writes wait for that
    /// transaction, and the workers for a reader slot that such threads may all hold, so waiting
    /// for them could never end. So it does on one of the library's own threads (from an
    /// extractor or a password provider), whose work is part of what it would wait for.
    public func waitUntilIdle() {
        if store?.holdsConnectionOnCurrentThread == true || isWorkerThread { return }
        try? wait(for: .idle)
    }

    /// Blocks like `waitUntilIdle()`, then throws `SearchError.indexWriteFailed` when the index
    /// of some documents could not be written to the store (disk full, I/O error): they are not
    /// searchable in their new version, and their status is `.failed` with the reason. Adding
    /// them again (or syncing their folder again) once there is room retries them.
    ///
    /// Throws `StoreError.closed` when the store is closed, or closes before everything queued
    /// is indexed (what it dropped was never indexed). Throws at once, never waiting:
    /// `StoreError.insideTransaction` inside `store.transaction` or `store.read` on its thread
    /// (the index writes wait for that transaction, and the workers for a reader slot that such
    /// threads may all hold), and `SearchError.calledFromLibraryThread` on one of the library's
    /// own threads (in a `TextExtractor` or the `passwordProvider`), whose work is part of what
    /// it would wait for.
    public func waitUntilIndexed() throws {
        guard let store, store.isOpen else { throw StoreError.closed }
        if store.isInTransactionOnCurrentThread {
            throw StoreError.insideTransaction(
                operation: "waiting for the index (its writes wait for this transaction)")
        }
        if store.holdsConnectionOnCurrentThread {
            throw StoreError.insideTransaction(
                operation: "waiting for the index inside store.read (its workers need a reader slot this thread holds)")
        }
        if isWorkerThread { throw SearchError.calledFromLibraryThread(operation: "waitUntilIndexed()") }
        try wait(for: .indexed)
    }

    /// Blocks until every queued document is extracted and written (the store is about to
    /// close: a document whose `add` returned is not dropped). Pages queued for OCR are not
    /// waited for (they take seconds each): the next `add` or sync of their document queues
    /// them again. Returns at once on the library's own threads, inside a transaction on its
    /// thread, and while the library is paused (its queue is then dropped by the close).
    func waitForQueuedDocuments() {
        // From here `add` and `sync` are refused with `StoreError.closed`: what they queued could
        // only be dropped.
        state.withLock { isClosing = true }
        if store?.holdsConnectionOnCurrentThread == true || isWorkerThread { return }
        try? wait(for: .queuedDocuments)
    }

    /// Sleeps on `state` until a waiter for `goal` is settled, and returns (or throws) its result.
    private func wait(for goal: QueueWaiter.Goal) throws {
        let slot = WaitResult()
        try state.withLock {
            register(QueueWaiter(goal: goal) { result in slot.value.withLock { $0 = result } })
            while true {
                if let result = slot.value.withLock({ $0 }) { return try result.get() }
                state.wait()
            }
        }
    }

    // MARK: Async waits

    /// The async form of `waitUntilIdle()`: returns when nothing is queued, extracting or being
    /// written; a cancelled task returns at once with `CancellationError` (indexing goes on).
    /// No thread waits: the task suspends until the library's queue settles it.
    public func waitUntilIdleAsync() async throws {
        try await suspend(until: .idle, cancellable: true)
    }

    /// The async form of `waitUntilIndexed()`, with its errors (`StoreError.closed` when the
    /// store closes first, `SearchError.indexWriteFailed`); a cancelled task returns at once with
    /// `CancellationError`. No thread waits: the task suspends until the library's queue
    /// settles it.
    public func waitUntilIndexedAsync() async throws {
        guard let store, store.isOpen else { throw StoreError.closed }
        try await suspend(until: .indexed, cancellable: true)
    }

    /// The async form of `waitUntilIdle()` that never throws: it returns when the library is
    /// idle or, at once, when the task is cancelled (see `waitUntilIdleAsync()`).
    public func idle() async {
        try? await waitUntilIdleAsync()
    }

    /// The async form of `waitForQueuedDocuments()` (`Store.closeAsync()`), without a thread
    /// waiting; cancellation does not end it (the close goes on).
    func waitForQueuedDocumentsAsync() async {
        state.withLock { isClosing = true }
        try? await suspend(until: .queuedDocuments, cancellable: false)
    }

    /// Suspends the task until a waiter for `goal` is settled; when `cancellable`, cancelling the
    /// task removes the waiter and throws `CancellationError` at once.
    private func suspend(until goal: QueueWaiter.Goal, cancellable: Bool) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                state.withLock {
                    // Cancelled before the waiter existed: `onCancel` found nothing to remove.
                    if cancellable && Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    register(QueueWaiter(goal: goal) { continuation.resume(with: $0) }, id: id)
                }
            }
        } onCancel: {
            guard cancellable else { return }
            state.withLock { queueWaiters.removeValue(forKey: id) }?.resume(.failure(CancellationError()))
        }
    }

    // MARK: Settling

    /// Adds `waiter`, settling it at once when its goal is already reached; call with `state`
    /// held.
    private func register(_ waiter: QueueWaiter, id: UUID = UUID()) {
        if let result = outcome(of: waiter.goal) {
            waiter.resume(result)
        } else {
            queueWaiters[id] = waiter
        }
    }

    /// Broadcasts `state` (waking the workers and a closing store) and settles every waiter
    /// whose goal is reached; call with `state` held, wherever the queue's state changes.
    func stateChanged() {
        state.broadcast()
        guard !queueWaiters.isEmpty else { return }
        for (id, waiter) in queueWaiters {
            guard let result = outcome(of: waiter.goal) else { continue }
            queueWaiters.removeValue(forKey: id)
            waiter.resume(result)
        }
    }

    /// The result of a wait for `goal` now, or nil while it must go on; call with `state` held.
    private func outcome(of goal: QueueWaiter.Goal) -> Result<Void, any Error>? {
        let running = !active.isEmpty || !writeQueue.isEmpty || isWriting
        switch goal {
        case .idle:
            let idle = ((pending.isEmpty && ocrPending.isEmpty) || isPaused) && !running && ocrActive.isEmpty
            return idle || isStopped ? .success(()) : nil
        case .indexed:
            // Stopped first: what was queued was dropped, never indexed.
            if isStopped { return .failure(StoreError.closed) }
            guard ((pending.isEmpty && ocrPending.isEmpty) || isPaused) && !running && ocrActive.isEmpty else {
                return nil
            }
            guard let reason = writeFailures.sorted(by: { $0.key < $1.key }).first?.value else {
                return .success(())
            }
            return .failure(SearchError.indexWriteFailed(uids: writeFailures.keys.sorted(), reason: reason))
        case .queuedDocuments:
            return isStopped || ((pending.isEmpty || isPaused) && !running) ? .success(()) : nil
        }
    }
}
