import Foundation

/// The async forms of the library's blocking calls, named after the synchronous ones with
/// `Async` appended (so synchronous code keeps compiling unchanged inside async functions).
/// They run on Cipherdex's own queues, never blocking a thread of Swift's cooperative pool, and
/// honour the task's cancellation as each one says.
extension SearchLibrary {
    /// The async form of `sync(folder:allowedExtensions:)`. A cancelled task stops the sync
    /// between folders and documents: what it had queued is taken off the queue again (removals
    /// of deleted files already made stay made) and it throws `CancellationError`.
    public func syncAsync(folder: String, allowedExtensions: Set<String> = ["pdf", "txt", "md"]) async throws
        -> FolderSyncSummary
    {
        try await BlockingWork.run { cancellation in
            try self.sync(folder: folder, allowedExtensions: allowedExtensions, cancellation: cancellation)
        }
    }

    /// The async form of `add(fileAt:uid:)`.
    public func addAsync(fileAt path: String, uid: String? = nil) async throws {
        try await BlockingWork.run { _ in try self.add(fileAt: path, uid: uid) }
    }

    /// The async form of `add(data:uid:fileExtension:)`.
    public func addAsync(data: Data, uid: String, fileExtension: String) async throws {
        try await BlockingWork.run { _ in try self.add(data: data, uid: uid, fileExtension: fileExtension) }
    }

    /// The async form of `remove(uid:)`.
    @discardableResult
    public func removeAsync(uid: String) async throws -> Bool {
        try await runOnWriterQueue { try self.remove(uid: uid) }
    }

    /// The async form of `search(_:options:)`. A task cancelled while the search runs stops its
    /// preview work (the previews not yet cut are left empty, as after `cancelPreviews()`) and
    /// gets the results; one cancelled before it started gets `CancellationError`.
    public func searchAsync(_ text: String, options: SearchOptions = SearchOptions()) async throws -> SearchResults {
        try await BlockingWork.run { cancellation in try self.search(text, options: options, cancellation: cancellation)
        }
    }

    /// The async form of `setTokenizer(_:)`: the index is rebuilt on Cipherdex's own queue,
    /// never on Swift's cooperative pool (a task cancelled before it started gets
    /// `CancellationError`; once started, the rebuild commits or rolls back as a whole).
    public func setTokenizerAsync(_ tokenizer: SearchTokenizerKind) async throws {
        try await runOnWriterQueue { try self.setTokenizer(tokenizer) }
    }

    /// Runs a write on the store's serial writer queue, as the store's own async writes do: a
    /// task cancelled while it waits there behind another write gets `CancellationError` and
    /// nothing is done.
    private func runOnWriterQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard let store else { throw StoreError.closed }
        return try await BlockingWork.run(on: store.writerQueue) { _ in try body() }
    }
}
