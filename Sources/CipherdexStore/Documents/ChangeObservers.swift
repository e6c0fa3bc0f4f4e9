import Foundation
import Synchronization

/// A store's registry of change subscribers, and the slot of the write transaction running on
/// some thread (so document operations on that thread join it instead of deadlocking on the
/// writer, and a `close()` there is deferred until it ends).
///
/// Changes are published while the writer is still held, right after COMMIT, so every
/// subscriber receives the changes of each committed transaction once, in commit order. When
/// the store closes (`finishAll()`) every subscription ends, and later ones end at once.
final class ChangeObservers: Sendable {
    private struct Subscriber {
        /// The collection observed, or nil for all.
        let collection: String?
        /// Hands a change over without blocking (a stream yield or a queue dispatch).
        let deliver: @Sendable (DocumentChange) -> Void
        /// Ends the subscription from the store's side.
        let finish: @Sendable () -> Void
    }

    /// The running transaction: only ever used by the thread recorded with it (`begin` and
    /// `end` run on that thread, and `transactionOnCurrentThread` hands it to that thread only).
    private struct Active: @unchecked Sendable {
        let thread: pthread_t
        let transaction: StoreTransaction
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextID: UInt64 = 0
        var active: Active?
        /// Whether `Store.close()` was called by the running transaction's thread.
        var closeRequested = false
        /// Whether the store has closed (no subscription is kept from then on).
        var isFinished = false
    }

    private let state = Mutex(State())

    deinit {
        finishAll()
    }

    /// Adds a subscriber; returns its id for `remove`. Once the store has closed, `finish` runs
    /// at once and nothing is kept.
    func add(
        collection: String?, deliver: @escaping @Sendable (DocumentChange) -> Void,
        finish: @escaping @Sendable () -> Void
    ) -> UInt64 {
        let id: UInt64? = state.withLock { state in
            guard !state.isFinished else { return nil }
            state.nextID += 1
            state.subscribers[state.nextID] = Subscriber(collection: collection, deliver: deliver, finish: finish)
            return state.nextID
        }
        guard let id else {
            finish()
            return 0
        }
        return id
    }

    /// Removes a subscriber (no-op when already removed).
    func remove(_ id: UInt64) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
    }

    /// Ends every subscription (the store closed): each `changes()` stream finishes.
    func finishAll() {
        let finishing = state.withLock { state in
            state.isFinished = true
            defer { state.subscribers.removeAll() }
            return state.subscribers.values.map(\.finish)
        }
        finishing.forEach { $0() }
    }

    /// Number of subscribers (for tests).
    var count: Int { state.withLock { $0.subscribers.count } }

    /// Delivers the changes of a committed transaction, in order.
    func publish(_ changes: [DocumentChange]) {
        guard !changes.isEmpty else { return }
        state.withLock { state in
            guard !state.subscribers.isEmpty else { return }
            let ordered = state.subscribers.sorted { $0.key < $1.key }.map(\.value)
            for change in changes {
                for subscriber in ordered
                where subscriber.collection == nil || subscriber.collection == change.collection {
                    subscriber.deliver(change)
                }
            }
        }
    }

    /// The write transaction running on the calling thread, if any.
    func transactionOnCurrentThread() -> StoreTransaction? {
        state.withLock { state in
            guard let active = state.active, pthread_equal(active.thread, pthread_self()) != 0 else { return nil }
            return active.transaction
        }
    }

    /// Records `transaction` as running on the calling thread (the writer is held).
    func begin(_ transaction: StoreTransaction) {
        state.withLock { $0.active = Active(thread: pthread_self(), transaction: transaction) }
    }

    /// Clears the running transaction; returns whether `close()` was deferred during it.
    @discardableResult
    func end() -> Bool {
        state.withLock { state in
            state.active = nil
            defer { state.closeRequested = false }
            return state.closeRequested
        }
    }

    /// When a transaction runs on the calling thread, records that the store must close once it
    /// ends and returns true; otherwise returns false (close now).
    func deferCloseIfInTransaction() -> Bool {
        state.withLock { state in
            guard let active = state.active, pthread_equal(active.thread, pthread_self()) != 0 else { return false }
            state.closeRequested = true
            return true
        }
    }
}
