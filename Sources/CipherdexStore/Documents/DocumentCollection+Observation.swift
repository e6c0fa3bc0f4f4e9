import Foundation

extension DocumentCollection {
    /// A stream of the collection's committed changes, from now on: each change exactly once,
    /// in commit order; changes of rolled-back transactions never appear. The stream buffers
    /// without bound and ends when the store closes (`close()`, or its release once nothing
    /// holds it). A collection holds its store: a task that loops over the stream while holding
    /// the collection (or the store) keeps the store open until `close()` is called or the task
    /// is cancelled; cancel the consuming task (or drop the stream) to unsubscribe.
    public func changes() -> AsyncStream<DocumentChange> {
        let registry = store.changeObservers
        let collection = name
        return AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let id = registry.add(
                collection: collection, deliver: { continuation.yield($0) }, finish: { continuation.finish() })
            continuation.onTermination = { [weak registry] _ in registry?.remove(id) }
        }
    }

    /// Calls `handler` with each committed change of the collection, from now on, exactly once
    /// and in commit order, on a private serial queue (never inside the writing transaction).
    /// The observation lasts until the token is cancelled or released.
    public func observe(_ handler: @escaping @Sendable (DocumentChange) -> Void) -> ObservationToken {
        let registry = store.changeObservers
        let queue = DispatchQueue(label: "cipherdex.documents.observer")
        let flag = CancellationFlag()
        let id = registry.add(
            collection: name,
            deliver: { change in
                queue.async { if !flag.isCancelled { handler(change) } }
            },
            finish: { flag.cancel() })
        return ObservationToken { [weak registry] in
            flag.cancel()
            registry?.remove(id)
        }
    }
}
