import Dispatch
import Foundation
import Synchronization

/// Runs the blocking work behind Cipherdex's async calls on the library's own dispatch queues,
/// never on Swift's cooperative pool, and awaits it through a continuation (GRDB's model: the
/// database work happens on the library's queues; the calling task only suspends).
///
/// Cancellation of the awaiting task sets the work's `WorkCancellation` (which the work checks
/// between documents, chunks or waits, throwing `CancellationError`) and runs `wake` (which
/// interrupts a wait). Work that has not started yet when its task is cancelled never starts:
/// the task resumes at once with `CancellationError`; so does work whose first store write still
/// waits for the writer (held by another thread's transaction: `beforeTakingTheWriter`). Started
/// work is awaited to its end
/// (`.finish`: its result, or the `CancellationError` it threw, is what the task gets), unless
/// it is `.abandon`ed: then the task resumes at once with `CancellationError`, the work runs on
/// to its end in the background and `discard` receives a value it produced after all.
package enum BlockingWork {
    /// What a cancelled task does about work that has started.
    package enum WhenCancelled: Sendable {
        /// Waits for the work, which stops at its next cancellation check.
        case finish
        /// Returns at once; the work goes on in the background and its value is discarded.
        case abandon
    }

    /// Cipherdex's own concurrent queue for blocking work that belongs to no one store's writer
    /// (opening a store, attachment copies, reads, waits).
    package static let queue = DispatchQueue(
        label: "cipherdex.blocking", qos: .userInitiated, attributes: .concurrent)

    /// Runs `body` on `queue` and returns its value to the awaiting task (see the type's
    /// description for what cancellation does).
    package static func run<T: Sendable>(
        on queue: DispatchQueue = BlockingWork.queue, whenCancelled: WhenCancelled = .finish,
        wake: @escaping @Sendable () -> Void = {}, discard: @escaping @Sendable (T) -> Void = { _ in },
        _ body: @escaping @Sendable (WorkCancellation) throws -> T
    ) async throws -> T {
        let cancellation = WorkCancellation()
        let resumption = Resumption<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                resumption.install(continuation)
                if cancellation.isCancelled {
                    resumption.cancel(abandoningStarted: true)
                    return
                }
                queue.async {
                    guard resumption.start() else { return }
                    let result = Result { () throws -> T in
                        try cancellation.check()
                        return try cancellation.beforeTakingTheWriter { try body(cancellation) }
                    }
                    if !resumption.resume(with: result), case .success(let value) = result { discard(value) }
                }
            }
        } onCancel: {
            cancellation.cancel()
            wake()
            resumption.cancel(abandoningStarted: whenCancelled == .abandon)
        }
    }
}

/// A cancellation flag shared by an awaiting task and the blocking work it started.
package final class WorkCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// What a cancellation does at once while `running(_:onCancel:)` runs its body.
    private let onCancel = Mutex<(@Sendable () -> Void)?>(nil)

    /// A flag that is not set.
    package init() {}

    /// Whether the awaiting task was cancelled.
    package var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Throws `CancellationError` when the awaiting task was cancelled.
    package func check() throws {
        if isCancelled { throw CancellationError() }
    }

    /// Sets the flag, and runs the action `running(_:onCancel:)` holds, if any.
    package func cancel() {
        cancelled.store(true, ordering: .releasing)
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    /// Runs `body`, which cannot be interrupted, then throws `CancellationError` if the flag is
    /// set. A cancellation while `body` runs calls `action` at once, on the cancelling thread
    /// (at most once, and never once `body` has returned and the flag was found clear): for
    /// letting go of what `body`'s caller holds but will not use once cancelled, since the
    /// caller throws right after `body` (an abandoned open's store lock, released during its
    /// key derivation).
    package func running<T>(_ body: () throws -> T, onCancel action: @escaping @Sendable () -> Void) throws -> T {
        onCancel.withLock { $0 = action }
        defer { onCancel.withLock { $0 = nil } }
        // Cancelled before `action` was installed: `cancel()` did not see it.
        try check()
        let value = try body()
        onCancel.withLock { $0 = nil }
        try check()
        return value
    }

    /// The thread-specific slot of the work running on a thread that has not taken a store's
    /// writer yet (`takeBeforeTheWriter`).
    private static let pendingKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
        return key
    }()

    /// Runs `body` with this flag noted as the calling thread's work that has taken no writer
    /// yet: the first store write it starts waits for the writer only while the flag is not set
    /// (`DatabasePool.write`), so a write queued behind another thread's transaction still
    /// returns `CancellationError` at once, with nothing done.
    func beforeTakingTheWriter<T>(_ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(Self.pendingKey)
        pthread_setspecific(Self.pendingKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.pendingKey, previous) }
        return try body()
    }

    /// The calling thread's work that has taken no writer yet, if any, which from now on has
    /// (later writes of the same work wait as any other).
    package static func takeBeforeTheWriter() -> WorkCancellation? {
        guard let pending = pthread_getspecific(pendingKey) else { return nil }
        pthread_setspecific(pendingKey, nil)
        return Unmanaged<WorkCancellation>.fromOpaque(pending).takeUnretainedValue()
    }
}

/// The continuation of one `BlockingWork.run`, resumed exactly once: by the work's result, or
/// by cancellation before the work started (or, when abandoning, at any time).
private final class Resumption<T: Sendable>: Sendable {
    private struct State: ~Copyable {
        var continuation: CheckedContinuation<T, any Error>?
        var started = false
        var finished = false
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Marks the work started; false when the task was already resumed (cancelled), so the
    /// work must not run.
    func start() -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            state.started = true
            return true
        }
    }

    /// Resumes with `result`; false when the task had already been resumed.
    @discardableResult
    func resume(with result: Result<T, any Error>) -> Bool {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard !state.finished, let continuation = state.continuation else { return nil }
            state.finished = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
        return continuation != nil
    }

    /// Resumes with `CancellationError` unless the work has started (and is not abandoned).
    func cancel(abandoningStarted: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard !state.finished, let continuation = state.continuation else { return nil }
            guard !state.started || abandoningStarted else { return nil }
            state.finished = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(throwing: CancellationError())
    }
}
