import Foundation

/// Keeps a change observer registered; `cancel()` or releasing the token ends the observation.
public final class ObservationToken: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelAction: (@Sendable () -> Void)?

    init(cancel: @escaping @Sendable () -> Void) {
        self.cancelAction = cancel
    }

    deinit {
        cancel()
    }

    /// Ends the observation: no callback starts and no stream element is produced after this
    /// returns (a callback already running finishes). Idempotent.
    public func cancel() {
        let action = lock.withLock { () -> (@Sendable () -> Void)? in
            defer { cancelAction = nil }
            return cancelAction
        }
        action?()
    }

    /// Whether the observation was cancelled.
    public var isCancelled: Bool { lock.withLock { cancelAction == nil } }
}

/// A thread-safe cancelled flag shared by an observer's delivery closure and its token.
final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    /// Whether `cancel()` was called.
    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Sets the flag.
    func cancel() { lock.withLock { cancelled = true } }
}
