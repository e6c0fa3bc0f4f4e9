import Foundation

/// A store dropped without `close()` while documents are queued: `close()` would finish them
/// first, but the store's deinit comes too late for that (the library's `weak` reference to it
/// is already nil, so the workers stop and the queue is lost). So while anything is queued, the
/// library holds the store itself, and lets go of it once the queue is done, on a thread of its
/// own (never a worker, which the close that may follow waits for).
extension SearchLibrary {
    /// Holds `store` until the library is idle (called with `state` held, by `enqueue`).
    func keepStoreWhileQueued(_ store: Store) {
        guard heldStore == nil else { return }
        heldStore = store
        let thread = Thread { [self] in releaseStoreWhenIdle() }
        thread.name = "cipherdex-indexer-keeper"
        thread.start()
    }

    /// Waits until no document is queued, extracting or being written (or the library is
    /// paused with nothing running, or stopped), then lets go of the held store: when nothing
    /// else holds it, it closes here. Pages waiting for OCR are not waited for, as `close()`
    /// does not wait for them.
    private func releaseStoreWhenIdle() {
        let released: Store? = state.withLock {
            while !isStopped && ((!pending.isEmpty && !isPaused) || !active.isEmpty || !writeQueue.isEmpty || isWriting)
            {
                state.wait()
            }
            defer { heldStore = nil }
            return heldStore
        }
        // Dropped outside the lock: the store's deinit (its close) takes it.
        _ = released
    }
}
