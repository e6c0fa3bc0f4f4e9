@_exported import CipherdexExtraction
import Foundation
import Synchronization

/// Full-text search over the documents of one store — PDFs, plain text, Markdown, and any
/// format an application adds a `TextExtractor` for — with the index inside the store's
/// encrypted database. Obtain it as `store.library`.
///
/// Indexing runs in the background: documents are extracted on every core (PDFs by default in
/// helper processes — the executable itself, re-run — with time and memory limits per document, reused from a
/// pool the library owns), and one writer batches the inserts. Searching works while indexing runs.
///
/// `Sendable` unchecked because its queue state must be waited on (workers and
/// `waitUntilIdle` sleep until it changes), which `Mutex` cannot do: every mutable property
/// below is read and written only while `state` (an `NSCondition`) is held, and `store` is a
/// `weak let` to a `Sendable` store.
public final class SearchLibrary: @unchecked Sendable {
    weak let store: Store?
    /// The store, held while documents are queued (see `keepStoreWhileQueued`): one dropped
    /// without `close()` meanwhile still indexes them, then closes.
    var heldStore: Store?
    let state = NSCondition()
    /// Serializes `configure` (recursive: a `configure` inside its closure does not wait for itself).
    private let configuring = NSRecursiveLock()
    var configuration = Configuration()
    var pending: [IndexJob] = []
    var active: [String: Double] = [:]
    /// The source root of each running document (nil: `add`), for a sync's conflicts.
    var activeRoots: [String: String?] = [:]
    var writeQueue: [IndexOutcome] = []
    var isWriting = false
    var isPaused = false
    /// The store is closing: `add` and `sync` are refused (what they queued would be dropped).
    var isClosing = false
    var isStopped = false
    var workersStarted = 0
    var cancelledUIDs: Set<String> = []
    /// Documents whose last indexing could not be written to the store (disk full, I/O error),
    /// with the reason; cleared when one is written or removed.
    var writeFailures: [String: String] = [:]
    var subscribers: [UUID: AsyncStream<IndexingEvent>.Continuation] = [:]
    /// Waits for the queue (`waitUntilIdle`, `waitUntilIndexed`, their async forms, a closing
    /// store), settled by `stateChanged()`.
    var queueWaiters: [UUID: QueueWaiter] = [:]
    /// The helpers of isolated PDF extraction: one pool per library, for the configured limits,
    /// keeping up to `workerCount` idle helpers; closed when the store closes.
    var pdfPool: IsolatedExtractorPool?
    /// The helpers of OCR, with the per-page limits; closed when the store closes.
    var ocrPool: IsolatedExtractorPool?
    /// Pages waiting for OCR, taken only when no document is waiting (`pending` first).
    var ocrPending: [OCRPageJob] = []
    /// Pages being recognised now, per UID.
    var ocrActive: [String: Int] = [:]
    /// Pages queued for OCR per UID in this session (for the fraction of `status(of:)`).
    var ocrQueued: [String: Int] = [:]
    /// Each UID's OCR in its current indexing: its bytes and what it has spent.
    var ocrRuns: [String: OCRDocumentRun] = [:]
    /// Bumped by `cancelPreviews()`: a search whose preview work started under an older value
    /// stops cutting previews.
    let previewGeneration = Atomic<Int>(0)

    init(store: Store) {
        self.store = store
    }

    /// Replaces the configuration (applies to documents extracted from now on). `update` runs on
    /// a copy, outside the library's lock, so it may call the library (which waited for that
    /// lock for ever); calls to `configure` are serialized, and one made inside `update` is
    /// replaced by the outer one's result.
    public func configure(_ update: (inout Configuration) -> Void) {
        configuring.withLock {
            var copy = state.withLock { configuration }
            update(&copy)
            state.withLock { configuration = copy }
        }
    }

    // MARK: Adding and removing

    /// Queues the file for indexing under `uid` (default: the file's name): a worker reads it,
    /// stores it as an encrypted attachment and indexes it, so keep the file until
    /// `waitUntilIndexed()` returns or `status(of:)` says it is finished (a file gone by then is
    /// `.failed`). `Store.close()` finishes queued documents first. A document whose content did
    /// not change is not re-indexed.
    public func add(fileAt path: String, uid: String? = nil) throws {
        let name = PathName.lastComponent(of: path)
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw SearchError.unreadable(
                path: path, reason: errno == ENOENT ? "no such readable file" : String(cString: strerror(errno)))
        }
        switch FileKind(mode: info.st_mode, size: 0) {
        case .regular: break
        case .directory: throw SearchError.unreadable(path: path, reason: "a folder, not a file (use sync(folder:))")
        case let kind: throw SearchError.unreadable(path: path, reason: "\(kind.description), not a regular file")
        }
        guard access(path, R_OK) == 0 else {
            throw SearchError.unreadable(path: path, reason: "not readable: \(String(cString: strerror(errno)))")
        }
        try enqueue(
            IndexJob(
                uid: try Self.validated(uid ?? name), source: .file(path: path, storeCopy: true),
                fileExtension: Self.fileExtension(name)),
            replacingCanonicalTwins: true)
    }

    /// Queues an attachment already in the store for indexing under `uid`.
    public func add(attachment token: AttachmentToken, uid: String, fileExtension: String) throws {
        try enqueue(
            IndexJob(
                uid: try Self.validated(uid), source: .attachment(id: token.id),
                fileExtension: Self.fileExtension("x." + fileExtension)),
            replacingCanonicalTwins: true)
    }

    /// Queues `data` (kept in memory until a worker stores it as an encrypted attachment and
    /// indexes it) for indexing under `uid`; `Store.close()` finishes queued documents first.
    public func add(data: Data, uid: String, fileExtension: String) throws {
        try enqueue(
            IndexJob(
                uid: try Self.validated(uid), source: .data(data),
                fileExtension: Self.fileExtension("x." + fileExtension)),
            replacingCanonicalTwins: true)
    }

    /// Removes a document from the index (and its stored copy unless something else references
    /// it). Returns false when the UID is not indexed. Then gives back the space the document
    /// held (FTS4 merges, free pages) in bounded steps (`IndexSpaceReclaim`).
    @discardableResult
    public func remove(uid: String) throws -> Bool {
        try remove(uid: uid, reclaiming: true)
    }

    /// `remove(uid:)`; a folder sync removes with `reclaiming` false and reclaims once at its end.
    func remove(uid: String, reclaiming: Bool) throws -> Bool {
        state.withLock {
            pending.removeAll { $0.uid == uid }
            dropOCRPages(of: uid)
            writeFailures.removeValue(forKey: uid)
            if active[uid] != nil { cancelledUIDs.insert(uid) }
            stateChanged()
        }
        guard let store else { throw StoreError.closed }
        let (removed, pages) = try store.transaction { tx in
            let pages =
                try tx.connection.scalar("SELECT count(*) FROM search_pages WHERE uid = ?", [.text(uid)])?
                .integerValue ?? 0
            return (try SearchIndexWriter.remove(uid: uid, tx: tx), Int(pages))
        }
        if removed { publish(.removed(uid: uid)) }
        if reclaiming { IndexSpaceReclaim.run(store: store, removedPages: pages) }
        return removed
    }

    /// Removes every document from the index.
    public func removeAll() throws {
        state.withLock {
            pending.removeAll()
            dropOCRPages(of: nil)
            writeFailures.removeAll()
            cancelledUIDs.formUnion(active.keys)
            stateChanged()
        }
        guard let store else { throw StoreError.closed }
        let (uids, pages) = try store.transaction { tx in
            let pages = try tx.connection.scalar("SELECT count(*) FROM search_pages")?.integerValue ?? 0
            return (try SearchIndexWriter.removeAll(tx: tx), Int(pages))
        }
        for uid in uids { publish(.removed(uid: uid)) }
        IndexSpaceReclaim.run(store: store, removedPages: pages)
    }

    // MARK: Status and control

    /// Where `uid` stands. A document whose index entry could not be written to the store
    /// (disk full) is `.failed` with the reason, whatever an earlier version left stored.
    public func status(of uid: String) throws -> IndexStatus {
        let live: IndexStatus? = state.withLock {
            if let fraction = active[uid] { return .indexing(fraction: fraction) }
            if pending.contains(where: { $0.uid == uid }) { return .queued }
            if let reason = writeFailures[uid] { return Self.writeFailedStatus(reason) }
            return ocrFraction(uid).map { .indexing(fraction: $0) }
        }
        if let live { return live }
        guard let store else { throw StoreError.closed }
        return try store.read { try SearchIndexWriter.storedStatus(uid: uid, db: $0) }
    }

    /// Every UID in the index or in the queue with its status, sorted by UID.
    public func statuses() throws -> [(uid: String, status: IndexStatus)] {
        guard let store else { throw StoreError.closed }
        var result: [String: IndexStatus] = try store.read { db in
            var stored: [String: IndexStatus] = [:]
            for row in try db.rows("SELECT uid FROM search_documents") {
                guard let uid = row[0].textValue else { continue }
                stored[uid] = try SearchIndexWriter.storedStatus(uid: uid, db: db)
            }
            return stored
        }
        state.withLock {
            for (uid, reason) in writeFailures { result[uid] = Self.writeFailedStatus(reason) }
            for uid in Set(ocrPending.map(\.uid)).union(ocrActive.keys) {
                if let fraction = ocrFraction(uid) { result[uid] = .indexing(fraction: fraction) }
            }
            for job in pending { result[job.uid] = .queued }
            for (uid, fraction) in active { result[uid] = .indexing(fraction: fraction) }
        }
        return result.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Whether documents are queued or being indexed.
    public var isIndexing: Bool {
        state.withLock {
            !pending.isEmpty || !active.isEmpty || !writeQueue.isEmpty || isWriting || !ocrPending.isEmpty
                || !ocrActive.isEmpty
        }
    }

    /// Stops starting new documents (running ones finish).
    public func pause() {
        state.withLock {
            isPaused = true
            // A close waiting for the queue stops waiting for what is not running.
            stateChanged()
        }
    }

    /// Resumes after `pause()`.
    public func resume() {
        state.withLock {
            isPaused = false
            // The store was let go of while paused: held again while its queue is done.
            if !pending.isEmpty, let store { keepStoreWhileQueued(store) }
            stateChanged()
        }
    }

    /// Drops queued documents; a document being extracted is dropped when its extraction ends.
    public func cancel(uid: String? = nil) {
        state.withLock {
            if let uid {
                pending.removeAll { $0.uid == uid }
                dropOCRPages(of: uid)
                if active[uid] != nil { cancelledUIDs.insert(uid) }
            } else {
                pending.removeAll()
                dropOCRPages(of: nil)
                cancelledUIDs.formUnion(active.keys)
            }
            stateChanged()
        }
    }

    /// Progress events from now on, until the store closes or the stream is dropped. The stream
    /// buffers without bound (a few events per document): a stream kept but never read holds
    /// every event since it was made, so drop it (or cancel the task reading it) when done.
    public func events() -> AsyncStream<IndexingEvent> {
        let (stream, continuation) = AsyncStream<IndexingEvent>.makeStream()
        let key = UUID()
        state.withLock { subscribers[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = self?.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Stops the workers (the store is closing).
    func shutdown() {
        let (continuations, pools) = state.withLock {
            isStopped = true
            pending.removeAll()
            ocrPending.removeAll()
            ocrRuns.removeAll()
            stateChanged()
            defer {
                subscribers.removeAll()
                pdfPool = nil
                ocrPool = nil
            }
            return (Array(subscribers.values), [pdfPool, ocrPool])
        }
        for pool in pools { pool?.close() }
        for continuation in continuations { continuation.finish() }
    }

    func publish(_ event: IndexingEvent) {
        let continuations = state.withLock { Array(subscribers.values) }
        for continuation in continuations { continuation.yield(event) }
    }

    // MARK: Helpers

    static func validated(_ uid: String) throws -> String {
        guard SearchError.problem(withUID: uid) == nil else { throw SearchError.invalidUID(uid) }
        return uid
    }

    /// The status of a document whose index entry could not be written.
    static func writeFailedStatus(_ reason: String) -> IndexStatus {
        .failed(reason: "could not write the index: \(reason)")
    }

    static func fileExtension(_ name: String) -> String {
        (name as NSString).pathExtension.lowercased()
    }
}
