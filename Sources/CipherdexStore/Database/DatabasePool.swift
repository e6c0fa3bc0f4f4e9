import Dispatch
import Foundation

/// One writer and a small set of concurrent readers over the same WAL database (GRDB's
/// `DatabasePool` model). Writes are serialized; reads run in parallel with each other and with
/// the writer, each seeing a consistent snapshot.
///
/// `Sendable` unchecked because SQLite connections are C handles, not `Sendable`: the writer
/// connection is used only while `writerLock` is held, a reader connection by one checkout at a
/// time (it is in `idleReaders` or with exactly one `read`), and every mutable property is
/// read and written only under `readerLock`.
final class DatabasePool: @unchecked Sendable {
    private let writer: Connection
    private let writerLock = NSLock()
    private let readerLock = NSLock()
    private var idleReaders: [Connection] = []
    private var openReaders = 0
    private let readerSlots: DispatchSemaphore
    /// No reader connection: reads take the writer (`StoreConfiguration.readsOnWriter`).
    private let readsOnWriter: Bool
    private let makeReader: () throws -> Connection
    /// With `readsOnWriter`: a second connection a helper thread may read with during a read.
    private let companion: ReadCompanion?
    private var isClosed = false
    /// Readers checked out right now.
    private var readersInUse = 0
    /// The reader each thread is reading with, for a read inside it to join.
    private var readersByThread: [UInt: Connection] = [:]
    /// Run once the pool is closed and the last connection with it (see `close(then:)`).
    private var afterLastClose: (() -> Void)?
    /// The thread holding `writerLock` (guarded by `readerLock`), so that a write from that same
    /// thread fails at once instead of waiting for itself.
    private var writerThread: pthread_t?

    /// Wraps an open writer; `makeReader` opens a reader connection on demand, up to
    /// `maximumReaders` at once. With `readsOnWriter`, reads run on the writer, serialized with
    /// writes, and `makeReader` opens only the reads' `ReadCompanion`, when a helper thread first
    /// asks for it (one is kept).
    init(
        writer: Connection, maximumReaders: Int, readsOnWriter: Bool = false,
        makeReader: @escaping () throws -> Connection
    ) {
        self.writer = writer
        self.readsOnWriter = readsOnWriter
        self.readerSlots = DispatchSemaphore(value: max(1, maximumReaders))
        self.makeReader = makeReader
        companion = readsOnWriter ? ReadCompanion(open: makeReader) : nil
    }

    /// Runs `body` with the writer connection, serialized with every other write.
    ///
    /// The writer lock is not reentrant: called from inside another `write` on the same thread
    /// (a store operation that does not join the running transaction), this throws
    /// `StoreError.insideTransaction` at once rather than deadlock.
    func write<T>(_ body: (Connection) throws -> T) throws -> T {
        if holdsWriter { throw StoreError.insideTransaction(operation: "a write to the database") }
        if let cancellation = WorkCancellation.takeBeforeTheWriter() {
            // The first write of async work: it has done nothing yet, so a cancellation while
            // it waits for the writer ends it (checked every 5 ms), with nothing done.
            while !writerLock.lock(before: Date(timeIntervalSinceNow: 0.005)) {
                try cancellation.check()
            }
            if cancellation.isCancelled {
                writerLock.unlock()
                throw CancellationError()
            }
        } else {
            writerLock.lock()
        }
        setWriterThread(pthread_self())
        defer {
            setWriterThread(nil)
            writerLock.unlock()
        }
        try checkOpen()
        return try body(writer)
    }

    /// Whether the calling thread is inside `write` (holds the writer lock).
    var holdsWriter: Bool {
        readerLock.withLock { writerThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    private func setWriterThread(_ thread: pthread_t?) {
        readerLock.withLock { writerThread = thread }
    }

    /// Runs `body` in a write transaction.
    func writeTransaction<T>(_ body: (Connection) throws -> T) throws -> T {
        try write { connection in try connection.transaction { try body(connection) } }
    }

    /// Runs `body` with a reader connection inside a read transaction (one snapshot); with no
    /// readers, with the writer in one, waiting for the write in progress.
    ///
    /// A read inside a read on the same thread joins it: `body` gets the same connection and
    /// snapshot, and takes no second reader slot (taking one waited for ever once every slot was
    /// held by a thread doing the same).
    func read<T>(_ body: (Connection) throws -> T) throws -> T {
        if readsOnWriter { return try readOnWriter(body) }
        let thread = Self.currentThread
        if let joined = readerLock.withLock({ readersByThread[thread] }) { return try body(joined) }
        readerSlots.wait()
        defer { readerSlots.signal() }
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        try reader.execute("BEGIN DEFERRED")
        defer { try? reader.execute("COMMIT") }
        readerLock.withLock { readersByThread[thread] = reader }
        defer { _ = readerLock.withLock { readersByThread.removeValue(forKey: thread) } }
        return try body(reader)
    }

    /// Whether the calling thread is inside a `read` (holds a reader, or the writer).
    var holdsReaderOrWriter: Bool {
        holdsWriter || readerLock.withLock { readersByThread[Self.currentThread] != nil }
    }

    /// The calling thread, as a key.
    private static var currentThread: UInt {
        #if os(Linux)
            return pthread_self()
        #else
            return UInt(bitPattern: pthread_self())
        #endif
    }

    /// `read` without readers: inside a write on this thread, `body` reads through that write's
    /// connection as it is; otherwise it waits for the writer and reads in a transaction of its
    /// own, with the connection `query_only` as a reader's is (which readers of FTS4's segments
    /// check: a connection that may write may hold terms not yet in them), and the pool's
    /// `ReadCompanion` offered to helper threads (`Connection.readCompanion`) for its duration.
    private func readOnWriter<T>(_ body: (Connection) throws -> T) throws -> T {
        if holdsWriter {
            try checkOpen()
            return try body(writer)
        }
        return try write { connection in
            try connection.execute("PRAGMA query_only = ON")
            defer { try? connection.execute("PRAGMA query_only = OFF") }
            try connection.execute("BEGIN DEFERRED")
            defer { try? connection.execute("COMMIT") }
            guard let companion else { return try body(connection) }
            connection.readCompanion = (companion, companion.begin())
            defer {
                connection.readCompanion = nil
                companion.end()
            }
            return try body(connection)
        }
    }

    /// The async form of `write`: runs on Cipherdex's own queue (`BlockingWork`), never
    /// blocking a thread of Swift's cooperative pool.
    func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await BlockingWork.run { _ in try self.write(body) }
    }

    /// The async form of `read`.
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await BlockingWork.run { _ in try self.read(body) }
    }

    /// Closes every connection: idle readers first, then a checkpoint of the WAL by the writer and
    /// the writer itself. A reader still in use is closed when its read ends. `then` runs once no
    /// connection is left open — right away, or when the last reader in use is checked in — so
    /// the store's lock is released only after SQLite has let go of every file. Must not be
    /// called from inside `write` (it waits for the writer); `Store.close()` defers itself until
    /// the transaction ends.
    func close(then: @escaping () -> Void = {}) {
        writerLock.lock()
        defer { writerLock.unlock() }
        readerLock.lock()
        let idle = idleReaders
        idleReaders.removeAll()
        let alreadyClosed = isClosed
        isClosed = true
        if alreadyClosed {
            if readersInUse > 0 {
                let earlier = afterLastClose
                afterLastClose = {
                    earlier?()
                    then()
                }
                readerLock.unlock()
            } else {
                readerLock.unlock()
                then()
            }
            return
        }
        // A reader still in use (a backup's progress handler closing its own store, a read on
        // another thread) would hold a TRUNCATE checkpoint in SQLite's busy wait for 5 s, or until
        // it ends: then only what can be copied now is, and the last connection to close
        // checkpoints the rest.
        let readersBusy = readersInUse > 0
        readerLock.unlock()
        for reader in idle { reader.close() }
        companion?.close()
        try? writer.execute(readersBusy ? "PRAGMA wal_checkpoint(PASSIVE)" : "PRAGMA wal_checkpoint(TRUNCATE)")
        writer.close()
        readerLock.lock()
        if readersInUse > 0 {
            afterLastClose = then
            readerLock.unlock()
        } else {
            readerLock.unlock()
            then()
        }
    }

    private func checkOpen() throws {
        readerLock.lock()
        defer { readerLock.unlock() }
        if isClosed { throw StoreError.closed }
    }

    private func checkOutReader() throws -> Connection {
        readerLock.lock()
        if isClosed {
            readerLock.unlock()
            throw StoreError.closed
        }
        readersInUse += 1
        if let reader = idleReaders.popLast() {
            readerLock.unlock()
            return reader
        }
        readerLock.unlock()
        do {
            return try makeReader()
        } catch {
            checkIn(nil)
            throw error
        }
    }

    private func checkIn(_ reader: Connection?) {
        readerLock.lock()
        readersInUse -= 1
        guard isClosed else {
            if let reader { idleReaders.append(reader) }
            readerLock.unlock()
            return
        }
        let last = readersInUse == 0 ? afterLastClose : nil
        if readersInUse == 0 { afterLastClose = nil }
        readerLock.unlock()
        reader?.close()
        last?()
    }
}
