import Foundation

/// A store's registry of change subscribers, and the slot of the write transaction running on
/// some thread (so document operations on that thread join it instead of deadlocking on the
/// writer, and a `close()` there is deferred until it ends).
///
/// Changes are published while the writer is still held, right after COMMIT, so every
/// subscriber receives the changes of each committed transaction once, in commit order.
final class ChangeObservers: @unchecked Sendable {
    private struct Subscriber {
        /// The collection observed, or nil for all.
        let collection: String?
        /// Hands a change over without blocking (a stream yield or a queue dispatch).
        let deliver: @Sendable (DocumentChange) -> Void
        /// Ends the subscription from the store's side.
        let finish: @Sendable () -> Void
    }

    private let lock = NSLock()
    private var subscribers: [UInt64: Subscriber] = [:]
    private var nextID: UInt64 = 0
    private var active: (thread: pthread_t, transaction: StoreTransaction)?
    /// Whether `Store.close()` was called by the running transaction's thread.
    private var closeRequested = false

    deinit {
        let finishing = lock.withLock { subscribers.values.map(\.finish) }
        finishing.forEach { $0() }
    }

    /// Adds a subscriber; returns its id for `remove`.
    func add(
        collection: String?, deliver: @escaping @Sendable (DocumentChange) -> Void,
        finish: @escaping @Sendable () -> Void
    ) -> UInt64 {
        lock.withLock {
            nextID += 1
            subscribers[nextID] = Subscriber(collection: collection, deliver: deliver, finish: finish)
            return nextID
        }
    }

    /// Removes a subscriber (no-op when already removed).
    func remove(_ id: UInt64) {
        lock.withLock { _ = subscribers.removeValue(forKey: id) }
    }

    /// Number of subscribers (for tests).
    var count: Int { lock.withLock { subscribers.count } }

    /// Delivers the changes of a committed transaction, in order.
    func publish(_ changes: [DocumentChange]) {
        guard !changes.isEmpty else { return }
        lock.withLock {
            guard !subscribers.isEmpty else { return }
            let ordered = subscribers.sorted { $0.key < $1.key }.map(\.value)
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
        lock.withLock {
            guard let active, pthread_equal(active.thread, pthread_self()) != 0 else { return nil }
            return active.transaction
        }
    }

    /// Records `transaction` as running on the calling thread (the writer is held).
    func begin(_ transaction: StoreTransaction) {
        lock.withLock { active = (pthread_self(), transaction) }
    }

    /// Clears the running transaction; returns whether `close()` was deferred during it.
    @discardableResult
    func end() -> Bool {
        lock.withLock {
            active = nil
            defer { closeRequested = false }
            return closeRequested
        }
    }

    /// When a transaction runs on the calling thread, records that the store must close once it
    /// ends and returns true; otherwise returns false (close now).
    func deferCloseIfInTransaction() -> Bool {
        lock.withLock {
            guard let active, pthread_equal(active.thread, pthread_self()) != 0 else { return false }
            closeRequested = true
            return true
        }
    }
}
