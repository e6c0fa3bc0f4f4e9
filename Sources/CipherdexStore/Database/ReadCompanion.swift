import Foundation

/// A second read-only connection that a helper thread may read with while a read on the writer
/// runs (`StoreConfiguration.readsOnWriter`: a one-shot search process, whose single connection
/// otherwise authenticates and decrypts every page on one core).
///
/// It sees what that read sees: the read holds the writer for its whole length, so nothing in
/// this process writes, and no other process can (the store is locked to one process). A helper
/// reads only between `begin()` and `end()` of the read it was started for; `end()` waits for a
/// helper in the middle of a read, so no read of the companion overlaps a later write. The
/// connection is opened on first use, on the helper's thread (never holding the lock, so the read
/// does not wait for an open), and closed with the pool.
///
/// `@unchecked Sendable`: `state` is read and written only while `lock` is held; the connection
/// is used only by the helper holding `lock` in `read`.
package final class ReadCompanion: @unchecked Sendable {
    private struct State {
        /// Whether the read on the writer runs (between `begin()` and `end()`).
        var readRunning = false
        /// Counts the reads begun, so that a helper started for one never reads during another.
        var readNumber = 0
        var connection: Connection?
        /// True once an open failed (no other is tried) or the pool closed.
        var unusable = false
    }

    private let lock = NSLock()
    private var state = State()
    private let open: () throws -> Connection

    /// A companion whose connection `open` opens (a reader's configuration).
    init(open: @escaping () throws -> Connection) {
        self.open = open
    }

    /// Marks the start of a read on the writer; returns its number, for the helpers it starts.
    func begin() -> Int {
        lock.withLock {
            state.readRunning = true
            state.readNumber &+= 1
            return state.readNumber
        }
    }

    /// Marks the end of that read, once no helper reads (it waits for one that does).
    func end() {
        lock.withLock { state.readRunning = false }
    }

    /// The number of the read running now; nil when none runs (a helper is then never started).
    package var runningRead: Int? {
        lock.withLock { state.readRunning ? state.readNumber : nil }
    }

    /// Runs `body` with the companion connection in a read transaction of its own, if read
    /// `number` still runs (and the connection opens); false when `body` did not run. An error
    /// `body` throws is rethrown after the transaction ends.
    package func read(during number: Int, _ body: (Connection) throws -> Void) throws -> Bool {
        var opened: Connection?
        let needsOpen = lock.withLock { state.connection == nil && !state.unusable }
        if needsOpen {
            opened = try? open()
            lock.withLock {
                if let connection = opened, state.connection == nil, !state.unusable {
                    state.connection = connection
                    opened = nil
                } else if opened == nil {
                    state.unusable = true
                }
            }
            // Opened twice, or after the pool closed: not kept.
            opened?.close()
        }
        lock.lock()
        defer { lock.unlock() }
        guard state.readRunning, state.readNumber == number, let connection = state.connection else { return false }
        try connection.execute("BEGIN DEFERRED")
        defer { try? connection.execute("COMMIT") }
        try body(connection)
        return true
    }

    /// Closes the connection (the pool is closing; waits for a helper that reads).
    func close() {
        let connection = lock.withLock {
            state.unusable = true
            defer { state.connection = nil }
            return state.connection
        }
        connection?.close()
    }
}
