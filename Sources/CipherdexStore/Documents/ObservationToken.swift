import Foundation
import Synchronization

/// Keeps a change observer registered; `cancel()` or releasing the token ends the observation.
public final class ObservationToken: Sendable {
    private let cancelAction: Mutex<(@Sendable () -> Void)?>

    init(cancel: @escaping @Sendable () -> Void) {
        self.cancelAction = Mutex(cancel)
    }

    deinit {
        cancel()
    }

    /// Ends the observation: no callback starts and no stream element is produced after this
    /// returns (a callback already running finishes). Idempotent.
    public func cancel() {
        let action = cancelAction.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }

    /// Whether the observation was cancelled.
    public var isCancelled: Bool { cancelAction.withLock { $0 == nil } }
}

/// A thread-safe cancelled flag shared by an observer's delivery closure and its token.
final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)

    /// Whether `cancel()` was called.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Sets the flag.
    func cancel() { cancelled.store(true, ordering: .releasing) }
}
