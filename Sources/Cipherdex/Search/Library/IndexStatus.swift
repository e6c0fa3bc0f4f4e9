/// Where a document stands in the search index.
public enum IndexStatus: Sendable, Equatable, Codable {
    /// The UID is not in the index.
    case unknown
    /// Waiting for a worker.
    case queued
    /// Being extracted or written; `fraction` is the share of pages done.
    case indexing(fraction: Double)
    /// Indexed, with its page count.
    case finished(pageCount: Int)
    /// Could not be indexed; `reason` says why.
    case failed(reason: String)
    /// Password-protected and no (right) password was provided.
    case locked

    /// The state's name: unknown, queued, indexing, finished, failed, locked.
    public var name: String {
        switch self {
        case .unknown: return "unknown"
        case .queued: return "queued"
        case .indexing: return "indexing"
        case .finished: return "finished"
        case .failed: return "failed"
        case .locked: return "locked"
        }
    }
}

/// Progress of background indexing, delivered through `SearchLibrary.events()`.
public enum IndexingEvent: Sendable, Equatable {
    /// A worker started on the document.
    case started(uid: String)
    /// A page (with its annotations) was written to the index.
    case pageIndexed(uid: String, pageIndex: Int, pageCount: Int)
    /// The document is indexed.
    case finished(uid: String, pageCount: Int)
    /// The document failed; its status says why.
    case failed(uid: String, reason: String)
    /// The document needs a password.
    case locked(uid: String)
    /// The document was left out because nothing changed since it was indexed.
    case unchanged(uid: String)
    /// The document was removed from the index.
    case removed(uid: String)
}
