import Foundation

extension Store {
    /// The attachment files of this store, with the keys derived from the data key.
    package var attachmentStorage: AttachmentStorage {
        AttachmentStorage(layout: layout, dataKey: dataKey, finishedRemovals: finishedRemovals)
    }

    /// Adds the file at `path` as an attachment. It is read in pieces and encrypted on the way
    /// (memory stays flat), staged as ciphertext and made visible atomically. Identical content
    /// already stored is not stored twice: the existing attachment's id comes back, in a token
    /// carrying the content type and metadata given here (a reference's own, kept where the
    /// token is kept); the store's row, `attachmentToken(_:)` and an export keep the first
    /// one's.
    ///
    /// The file must be a regular file (a link to one is followed): a FIFO, directory, device or
    /// socket is refused at once with `AttachmentError.sourceNotRegularFile`, unread; a missing
    /// file is `AttachmentError.sourceNotFound`, one this process may not read
    /// `AttachmentError.sourceUnreadable`; a file larger than the free space of the store's disk
    /// is `StoreError.diskFull` at once.
    ///
    /// Called inside `transaction(_:)` on its thread, this and the other synchronous
    /// `addAttachment` forms join that transaction (as `StoreTransaction.addAttachment` does): the
    /// attachment is readable there at once, and commits or rolls back with it.
    public func addAttachment(fromFile path: String, contentType: String? = nil, metadata: [String: String] = [:])
        throws -> AttachmentToken
    {
        let source = try AttachmentSourceFile(path: path, layout: layout)
        let type = contentType ?? AttachmentStorage.contentType(forExtension: (path as NSString).pathExtension)
        return try addAttachment(contentType: type, metadata: metadata) { sink in try source.stream(into: sink) }
    }

    /// Adds `data` as an attachment.
    public func addAttachment(_ data: Data, contentType: String? = nil, metadata: [String: String] = [:]) throws
        -> AttachmentToken
    {
        try addAttachment(contentType: contentType, metadata: metadata) { sink in
            try data.withUnsafeBytes { try sink($0) }
        }
    }

    /// Adds an attachment from a sequence of pieces (any size each).
    public func addAttachment<Pieces: Sequence>(
        from pieces: Pieces, contentType: String? = nil, metadata: [String: String] = [:]
    ) throws -> AttachmentToken where Pieces.Element == Data {
        try addAttachment(contentType: contentType, metadata: metadata) { sink in
            for piece in pieces { try piece.withUnsafeBytes { try sink($0) } }
        }
    }

    /// Adds an attachment whose content `produce` streams; the general form of the others.
    public func addAttachment(
        contentType: String? = nil, metadata: [String: String] = [:],
        content produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> AttachmentToken {
        guard isOpen else { throw StoreError.closed }
        if let running = changeObservers.transactionOnCurrentThread() {
            return try Store.mappingDatabaseErrors {
                try running.addAttachment(contentType: contentType, metadata: metadata, content: produce)
            }
        }
        try refuseWhenReadOnly()
        let staged = try attachmentStorage.stage(produce)
        return try commitStaged(staged, contentType: contentType, metadata: metadata)
    }

    /// Records a staged attachment and publishes its file, both while holding the writer;
    /// `beforePublishing` runs between the commit and the rename (tests start a removal there).
    /// A `cancellation` set by the time the writer is held (an async add waited behind another
    /// write) drops the staged file and throws `CancellationError`: nothing is recorded.
    func commitStaged(
        _ staged: AttachmentStorage.Staged, contentType: String?, metadata: [String: String],
        cancellation: WorkCancellation? = nil, beforePublishing: () -> Void = {}
    ) throws -> AttachmentToken {
        let storage = attachmentStorage
        // Published before the writer is released, as a transaction's `afterCommit` does: whoever
        // holds the writer (`verify`, a removal) never sees a committed row whose file is still
        // on its way into `attachments/`.
        // The staged file is removed when the write never starts (cancelled while it waited for
        // the writer, the store closed meanwhile) or is cancelled as it starts.
        var started = false
        defer { if !started { unlink(staged.path) } }
        let id = try Store.mappingDatabaseErrors {
            try pool.write { db in
                if cancellation?.isCancelled == true { throw CancellationError() }
                started = true
                let id: String
                var recorded = false
                do {
                    id = try db.transaction {
                        let id = try storage.commit(staged, db: db, contentType: contentType, metadata: metadata)
                        try storage.recordClaim(id, db: db)
                        recorded = true
                        return id
                    }
                } catch {
                    // Rolled back before its commit, or its commit refused for a full disk (no
                    // commit record reached the log): the staged copy is nobody's once the
                    // database, asked while the writer is still held, has no row for it (it
                    // stayed in `staging/` until the next open, the disk full meanwhile). A commit
                    // that failed otherwise (an I/O error at its sync) may come back from the log
                    // at the next open: its file stays for that open's `reconcile` to decide.
                    let commitRefusedForSpace = (error as? DatabaseError)?.code == Connection.fullCode
                    if !recorded || commitRefusedForSpace,
                        let rows = try? db.rows("SELECT 1 FROM attachments WHERE id = ?", [.text(staged.id)]),
                        rows.isEmpty
                    {
                        unlink(staged.path)
                    }
                    throw error
                }
                beforePublishing()
                // Committed: the attachment is stored whatever the rename does. A rename that
                // fails (a full disk) leaves the file in `staging/`, where readers find it and
                // the next open publishes it, as after a crash here.
                if id == staged.id { try? storage.publish(id) }
                return id
            }
        }
        return AttachmentToken(id: id, length: staged.length, contentType: contentType, metadata: metadata)
    }

    /// A reader for the attachment `id`: whole, by chunks or by byte range. Throws
    /// `AttachmentError.notFound` when there is no such attachment. Inside a transaction, on its
    /// thread, attachments it added are found too. In an unencrypted store its whole reads are
    /// checked against the recorded content hash (`AttachmentReader`).
    public func attachment(_ id: String) throws -> AttachmentReader {
        guard AttachmentStorage.isValidID(id), let token = try attachmentToken(id) else {
            throw AttachmentError.notFound(id: id)
        }
        // An encrypted store's chunks are authenticated; a plaintext file has only this hash.
        let recordedHash =
            attachmentStorage.masterKey != nil
            ? nil
            : try readJoiningTransaction { db in
                try db.scalar("SELECT content_hash FROM attachments WHERE id = ?", [.text(id)])?.blobValue
            }
        return try openAttachment(id, recordedLength: token.length, recordedContentHash: recordedHash)
    }

    /// Opens the file of recorded attachment `id`; `beforeOpening` runs between choosing its path
    /// and opening it (tests move the file there, as a concurrent `publish` would).
    func openAttachment(
        _ id: String, recordedLength: UInt64? = nil, recordedContentHash: [UInt8]? = nil,
        beforeOpening: (String) -> Void = { _ in }
    ) throws -> AttachmentReader {
        let storage = attachmentStorage
        // The reader refuses to read once this store is closed (it read on after close, and after
        // the store was deleted).
        let storeIsOpen: @Sendable () -> Bool = { [weak self] in self?.isOpen ?? false }
        do {
            let path = storage.readablePath(of: id)
            beforeOpening(path)
            return try AttachmentReader(
                id: id, path: path, masterKey: storage.masterKey, recordedLength: recordedLength,
                recordedContentHash: recordedContentHash, storeIsOpen: storeIsOpen)
        } catch AttachmentError.notFound {
            // Found in `staging/` just before its `publish` renamed it: a file only ever moves from
            // `staging/` to `attachments/`, so the second look finds it there.
            return try AttachmentReader(
                id: id, path: storage.readablePath(of: id), masterKey: storage.masterKey,
                recordedLength: recordedLength, recordedContentHash: recordedContentHash,
                storeIsOpen: storeIsOpen)
        }
    }

    /// The whole content of attachment `id`.
    public func attachmentData(_ id: String) throws -> Data {
        try attachment(id).readAll()
    }

    /// The recorded description of attachment `id` (content type and metadata of its first
    /// addition), or nil when there is none. Inside a transaction, on its thread, this sees the
    /// transaction's uncommitted changes.
    public func attachmentToken(_ id: String) throws -> AttachmentToken? {
        guard AttachmentStorage.isValidID(id) else { return nil }
        return try readJoiningTransaction { try AttachmentStorage.token(id: id, db: $0) }
    }

    /// Every attachment's token, by id (inside a transaction: as that transaction sees them).
    public func attachmentTokens() throws -> [AttachmentToken] {
        try readJoiningTransaction { db in
            try db.rows("SELECT id FROM attachments ORDER BY id").compactMap { row in
                try row[0].textValue.flatMap { try AttachmentStorage.token(id: $0, db: db) }
            }
        }
    }

    /// Removes attachment `id` (row now, file right after the commit); false when absent.
    /// Identical content added twice has one id: removing it removes it for every document
    /// that lists it (`collectUnreferencedAttachments` removes only what nothing lists).
    /// An attachment a feature holds (an indexed document's stored original) is refused with
    /// `AttachmentError.heldByFeature`.
    @discardableResult
    public func removeAttachment(_ id: String) throws -> Bool {
        try transaction { try $0.removeAttachment(id) }
    }

    /// Removes every attachment that no document references (a reference is an object with a
    /// `"cipherdexAttachment": "<id>"` member anywhere in a document, which is how an encoded
    /// `AttachmentToken` looks) and that no other feature holds. Returns the removed ids.
    @discardableResult
    public func collectUnreferencedAttachments() throws -> [String] {
        try refuseWithForeignFeatures("collectUnreferencedAttachments()")
        return try transaction { tx in
            var referenced = Set<String>()
            try DocumentStorage(db: tx.connection).scanAllBodies { value in
                value.collectAttachmentReferences(into: &referenced)
            }
            referenced.formUnion(try attachmentHolders.flatMap { try $0(tx.connection) })
            let all = try tx.connection.rows("SELECT id FROM attachments").compactMap { $0.first?.textValue }
            var removed: [String] = []
            for id in all where !referenced.contains(id) {
                if try tx.removeAttachment(id, checkingHolders: false) { removed.append(id) }
            }
            return removed.sorted()
        }
    }

    /// Features other than documents that keep attachments alive (the search index), as they
    /// were passed to `open`: each returns the ids it holds.
    var attachmentHolders: [@Sendable (Connection) throws -> [String]] {
        configuration.allFeatures.map(\.heldAttachments)
    }

    /// Throws `featureUnavailable` when the database holds tables of a feature this store was
    /// not opened with: what it holds is unknown here, so nothing may be taken for unreferenced.
    func refuseWithForeignFeatures(_ operation: String) throws {
        let recorded = try Store.mappingDatabaseErrors { try read { try Migrator.recordedVersions(of: $0) } }
        let foreign = configuration.foreignVersions(in: recorded)
        if !foreign.isEmpty { throw StoreError.featureUnavailable(operation: operation, versions: foreign) }
    }
}

extension JSONValue {
    /// Adds the ids of every `{"cipherdexAttachment": "<id>"}` object inside this value.
    func collectAttachmentReferences(into ids: inout Set<String>) {
        switch self {
        case .object(let members):
            if case .string(let id)? = members[AttachmentToken.referenceKey] { ids.insert(id) }
            for member in members.values { member.collectAttachmentReferences(into: &ids) }
        case .array(let elements):
            for element in elements { element.collectAttachmentReferences(into: &ids) }
        default:
            break
        }
    }
}
