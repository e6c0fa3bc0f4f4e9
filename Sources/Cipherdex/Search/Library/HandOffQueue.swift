import Dispatch
import Foundation

/// Items one thread produces (rows read on a database connection, which only that thread may
/// use) and hands to one helper thread while it goes on producing; once it has produced them all,
/// it takes what is left itself and collects every item's output.
///
/// The producer never waits for a helper that has not started (on a busy machine its turn can
/// come late): after `close()` it takes every item not yet taken, then waits only for the items
/// the helper took and has not finished. A helper that starts late finds nothing to take and
/// returns. Outputs come in no particular order.
///
/// `@unchecked Sendable`: `state` is read and written only while `lock` is held. An `NSLock`
/// rather than `Mutex`, whose lock ThreadSanitizer does not see on Linux (every access to the
/// state inside `Mutex.withLock` was reported as a race under `make tsan`).
final class HandOffQueue<Item: Sendable, Output: Sendable>: @unchecked Sendable {
    private struct State {
        var items: [Item] = []
        /// Items taken so far (by either thread): the next one to take.
        var next = 0
        /// Items whose output (or failure) is recorded.
        var finished = 0
        var closed = false
        /// Whether the producer waits for the helper's last item (`allFinished`).
        var producerWaits = false
        var outputs: [Output] = []
        /// The first item that failed.
        var failure: (any Error)?
    }

    private let lock = NSLock()
    private var state = State()
    /// One signal per item put and one for `close()`: the helper's wake-ups.
    private let available = DispatchSemaphore(value: 0)
    /// Signalled by the helper when it finishes the last item the producer waits for.
    private let allFinished = DispatchSemaphore(value: 0)

    init() {}

    /// Adds an item (producer only, before `close()`).
    func put(_ item: Item) {
        withState { $0.items.append(item) }
        available.signal()
    }

    /// Says that no more items come (producer only, once).
    func close() {
        withState { $0.closed = true }
        available.signal()
    }

    /// Drops every item not yet taken (producer only, after `close()`): for cancelled work.
    func discardUntaken() {
        withState { state in
            // Counted as finished, so `finish()` waits only for items a thread really took.
            state.finished += state.items.count - state.next
            state.next = state.items.count
        }
    }

    /// The helper's loop, on one helper thread: processes the items it takes until the queue is
    /// closed and has none left.
    func serve(_ process: (Item) throws -> Output) {
        while true {
            available.wait()
            guard let item = take() else {
                // Before `close()` every wake-up has an item (only the helper takes until then).
                if withState({ $0.closed }) { return }
                continue
            }
            record(Result { try process(item) })
        }
    }

    /// The producer, after `close()`: processes every item not yet taken, waits for those the
    /// helper is still processing, and returns every output; throws the first failure. Once
    /// `stop` is true (asked before each item it would take), the items not yet taken are
    /// dropped (`discardUntaken`): only those the helper holds are waited for.
    func finish(stoppingWhen stop: () -> Bool = { false }, _ process: (Item) throws -> Output) throws -> [Output] {
        while true {
            if stop() {
                discardUntaken()
                break
            }
            guard let item = take() else { break }
            record(Result { try process(item) })
        }
        let waits = withState { state -> Bool in
            guard state.finished < state.next else { return false }
            state.producerWaits = true
            return true
        }
        if waits { allFinished.wait() }
        return try withState { state in
            if let failure = state.failure { throw failure }
            let outputs = state.outputs
            state.outputs = []
            return outputs
        }
    }

    /// The next item, or nil when every item put so far is taken.
    private func take() -> Item? {
        withState { state in
            guard state.next < state.items.count else { return nil }
            state.next += 1
            return state.items[state.next - 1]
        }
    }

    private func record(_ result: Result<Output, any Error>) {
        let wakeProducer = withState { state -> Bool in
            switch result {
            case .success(let output): if state.failure == nil { state.outputs.append(output) }
            case .failure(let error): if state.failure == nil { state.failure = error }
            }
            state.finished += 1
            guard state.producerWaits, state.finished == state.next else { return false }
            state.producerWaits = false
            return true
        }
        if wakeProducer { allFinished.signal() }
    }

    /// Runs `body` on the state while holding the lock.
    private func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
