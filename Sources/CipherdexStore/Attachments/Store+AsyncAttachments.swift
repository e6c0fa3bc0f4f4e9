import Foundation

/// The async forms of the attachment operations, named after the synchronous ones with `Async`
/// appended. They run on Cipherdex's own queues, never blocking a thread of Swift's cooperative
/// pool.
extension Store {
    /// The async form of `addAttachment(fromFile:contentType:metadata:)`. Cancelling the task
    /// stops the copy between chunks (1 MiB): the staged ciphertext is deleted, nothing is
    /// recorded, and the task gets `CancellationError`. Once the copy is complete the attachment
    /// is committed and returned, whatever happens to the task.
    public func addAttachmentAsync(
        fromFile path: String, contentType: String? = nil, metadata: [String: String] = [:]
    ) async throws -> AttachmentToken {
        try await BlockingWork.run { cancellation in
            try self.addAttachment(
                fromFile: path, contentType: contentType, metadata: metadata, cancellation: cancellation)
        }
    }

    /// The async form of `addAttachment(_:contentType:metadata:)`: cancelling stops the write
    /// between chunks and leaves nothing behind, as for a file.
    public func addAttachmentAsync(_ data: Data, contentType: String? = nil, metadata: [String: String] = [:])
        async throws -> AttachmentToken
    {
        try await BlockingWork.run { cancellation in
            try self.stageAndCommit(contentType: contentType, metadata: metadata, cancellation: cancellation) { sink in
                try data.withUnsafeBytes { bytes in
                    var offset = 0
                    repeat {
                        let end = min(bytes.count, offset + (1 << 20))
                        try sink(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                        offset = end
                    } while offset < bytes.count
                }
            }
        }
    }

    /// Adds an attachment from an asynchronous stream of pieces (the async counterpart of
    /// `addAttachment(from:)`, which takes a `Sequence`). Each piece is encrypted and written on
    /// Cipherdex's own queue (never blocking a thread of Swift's cooperative pool), and the commit
    /// waits for the writer there too. Cancelling the task (or a failing stream) stops between
    /// pieces: the staged ciphertext is deleted and nothing is recorded.
    public func addAttachmentAsync<Pieces: AsyncSequence>(
        from pieces: Pieces, contentType: String? = nil, metadata: [String: String] = [:]
    ) async throws -> AttachmentToken where Pieces.Element == Data {
        try refuseWhenReadOnly()
        let storage = attachmentStorage
        let writer = try await BlockingWork.run { _ in try AsyncStagingWriter(storage: storage) }
        let staged: AttachmentStorage.Staged
        do {
            for try await piece in pieces {
                try Task.checkCancellation()
                try await BlockingWork.run { _ in try writer.append(piece) }
            }
            staged = try await BlockingWork.run { _ in try writer.finish() }
        } catch {
            writer.abandon()
            throw error
        }
        return try await BlockingWork.run { _ in
            try self.commitStaged(staged, contentType: contentType, metadata: metadata)
        }
    }

    /// The former name of `addAttachmentAsync(from:contentType:metadata:)`: sync and async forms
    /// never share a name (the synchronous `addAttachment(from:)` takes a `Sequence`).
    @available(*, deprecated, renamed: "addAttachmentAsync(from:contentType:metadata:)")
    public func addAttachment<Pieces: AsyncSequence>(
        from pieces: Pieces, contentType: String? = nil, metadata: [String: String] = [:]
    ) async throws -> AttachmentToken where Pieces.Element == Data {
        try await addAttachmentAsync(from: pieces, contentType: contentType, metadata: metadata)
    }

    /// The async form of `attachment(_:)`: opening checks the file's header.
    public func attachmentAsync(_ id: String) async throws -> AttachmentReader {
        try await BlockingWork.run { _ in try self.attachment(id) }
    }

    /// The async form of `attachmentData(_:)`; cancelling stops the read between chunks.
    public func attachmentDataAsync(_ id: String) async throws -> Data {
        try await BlockingWork.run { cancellation in
            try self.attachment(id).readAll(cancellation: cancellation)
        }
    }

    /// The async form of `removeAttachment(_:)` (on the store's writer queue).
    @discardableResult
    public func removeAttachmentAsync(_ id: String) async throws -> Bool {
        try await BlockingWork.run(on: writerQueue) { _ in try self.removeAttachment(id) }
    }

    /// The async form of `collectUnreferencedAttachments()` (on the store's writer queue).
    @discardableResult
    public func collectUnreferencedAttachmentsAsync() async throws -> [String] {
        try await BlockingWork.run(on: writerQueue) { _ in try self.collectUnreferencedAttachments() }
    }

    /// `addAttachment(fromFile:…)` stopping between chunks once `cancellation` is set.
    func addAttachment(
        fromFile path: String, contentType: String?, metadata: [String: String], cancellation: WorkCancellation
    ) throws -> AttachmentToken {
        let source = try AttachmentSourceFile(path: path, layout: layout)
        let type = contentType ?? AttachmentStorage.contentType(forExtension: (path as NSString).pathExtension)
        return try stageAndCommit(contentType: type, metadata: metadata, cancellation: cancellation) { sink in
            try source.stream(into: sink)
        }
    }

    /// Stages what `produce` streams, checking `cancellation` before each piece (a throw deletes
    /// the staged file), then commits it.
    private func stageAndCommit(
        contentType: String?, metadata: [String: String], cancellation: WorkCancellation,
        content produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> AttachmentToken {
        guard isOpen else { throw StoreError.closed }
        try refuseWhenReadOnly()
        let staged = try attachmentStorage.stage { sink in
            try withoutActuallyEscaping(sink) { sink in
                try produce { bytes in
                    try cancellation.check()
                    try sink(bytes)
                }
            }
            try cancellation.check()
        }
        return try commitStaged(staged, contentType: contentType, metadata: metadata, cancellation: cancellation)
    }
}
