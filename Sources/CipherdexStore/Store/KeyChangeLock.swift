import Foundation
import Synchronization

/// Serializes a store's metadata updates (key changes, a conversion's switch) and lets `close()`
/// wait for the one running: held across Argon2id and the atomic write, so a store closed from
/// another thread meanwhile lets go of its lock only once the write is done (or refused).
///
/// It knows which thread holds it, so that a `close()` reached on that thread (from code a key
/// change runs) is handled rather than waiting for itself forever: it goes on without waiting,
/// and the key change, which checks that the store is open right before writing, refuses.
final class KeyChangeLock: Sendable {
    private let mutex = Mutex(())
    /// The thread running a metadata update (`Self.currentThread`), 0 when none.
    private let holder = Atomic<UInt>(0)

    /// Runs `body` as the one metadata update of the store, waiting for a running one to end.
    func run<T>(_ body: () throws -> T) throws -> T {
        try mutex.withLock { _ in
            holder.store(Self.currentThread, ordering: .releasing)
            defer { holder.store(0, ordering: .releasing) }
            return try body()
        }
    }

    /// Runs `body` (the close's step that marks the store closed) once no metadata update is
    /// running on another thread; one running on this thread does not wait (see above).
    func afterRunningChange<T>(_ body: () -> T) -> T {
        if holder.load(ordering: .acquiring) == Self.currentThread { return body() }
        return mutex.withLock { _ in body() }
    }

    /// An identifier of the calling thread, never 0, stable while the thread lives.
    private static var currentThread: UInt { UInt(bitPattern: ObjectIdentifier(Thread.current)) }
}
