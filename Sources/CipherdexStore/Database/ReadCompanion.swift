import Foundation

/// A second read-only connection that a helper thread may read with while a read on the writer
/// runs (`StoreConfiguration.readsOnWriter`: a one-shot search process, whose single connection
/// otherwise authenticates and decrypts every page on one core).
///
/// It sees what that read sees: the read holds the writer for its whole length, so nothing in
/// this process writes, and no other process can (the store is locked to one process). A helper
/// opens or reads only between `begin()` and `end()` of the read it was started for; `end()`
/// waits for a helper in the middle of a read, so no read of the companion overlaps a later
/// write, and `close()` waits for an open in progress, so no connection of it outlives the pool.
/// The connection is opened on first use, on the helper's thread, without holding the lock (the
/// read does not wait for an open), and closed with the pool.
///
/// `@unchecked Sendable`: `state` is read and written only while `condition` is locked; the
/// connection is used only by the helper holding it in `read`.
package final class ReadCompanion: @unchecked Sendable {
    private struct State {
        /// Whether the read on the writer runs (between `begin()` and `end()`).
        var readRunning = false
        /// Counts the reads begun, so that a helper started for one never reads during another.
        var readNumber = 0
        var connection: Connection?
        /// Opens in progress (outside the lock).
        var opening = 0
        /// True once an open failed (no other is tried) or the pool closed.
        var unusable = false
    }

    private let condition = NSCondition()
    private var state = State()
    private let open: () throws -> Connection

    /// A companion whose connection `open` opens (a reader's configuration).
    init(open: @escaping () throws -> Connection) {
        self.open = open
    }

    /// Marks the start of a read on the writer; returns its number, for the helpers it starts.
    func begin() -> Int {
        locked {
            $0.readRunning = true
            $0.readNumber &+= 1
            return $0.readNumber
        }
    }

    /// Marks the end of that read, once no helper reads (it waits for one that does).
    func end() {
        locked { $0.readRunning = false }
    }

    /// The number of the read running now; nil when none runs. Not to be called from inside a
    /// `read(during:_:)` body (the lock is not reentrant).
    package var runningRead: Int? {
        locked { $0.readRunning ? $0.readNumber : nil }
    }

    /// Runs `body` with the companion connection in a read transaction of its own, if read
    /// `number` still runs (and the connection opens); false when `body` did not run. An error
    /// `body` throws is rethrown after the transaction ends.
    package func read(during number: Int, _ body: (Connection) throws -> Void) throws -> Bool {
        let needsOpen: Bool? = locked { state in
            guard state.readRunning, state.readNumber == number, !state.unusable else { return nil }
            guard state.connection == nil else { return false }
            state.opening += 1
            return true
        }
        guard let needsOpen else { return false }
        if needsOpen {
            var opened = try? open()
            locked { state in
                if let connection = opened, state.connection == nil, !state.unusable {
                    state.connection = connection
                    opened = nil
                } else if opened == nil {
                    state.unusable = true
                }
            }
            // Opened twice, or after the pool began to close: not kept.
            opened?.close()
            condition.lock()
            state.opening -= 1
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        defer { condition.unlock() }
        guard state.readRunning, state.readNumber == number, let connection = state.connection else { return false }
        try connection.execute("BEGIN DEFERRED")
        defer { try? connection.execute("COMMIT") }
        try body(connection)
        return true
    }

    /// Closes the connection (the pool is closing): waits for a helper that reads and for an open
    /// in progress, so that no connection of the companion is left once it returns.
    func close() {
        condition.lock()
        state.unusable = true
        while state.opening > 0 { condition.wait() }
        let connection = state.connection
        state.connection = nil
        condition.unlock()
        connection?.close()
    }

    private func locked<T>(_ body: (inout State) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(&state)
    }
}
