import Foundation

extension StoreTransaction {
    /// Adds an attachment whose content `produce` streams (it calls its argument with successive
    /// pieces), inside this transaction: it becomes visible when the transaction commits, and a
    /// rollback removes it. The content is encrypted into a staging file before this
    /// transaction's writer lock matters, so prefer `Store.addAttachment` outside transactions
    /// for very large content.
    public func addAttachment(
        contentType: String? = nil, metadata: [String: String] = [:],
        content produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> AttachmentToken {
        try checkActive()
        let storage = store.attachmentStorage
        let staged = try storage.stage(produce)
        return try savepoint {
            let id = try storage.commit(staged, db: connection, contentType: contentType, metadata: metadata)
            try storage.recordClaim(id, db: connection)
            if id == staged.id {
                onRollback { [path = staged.path] in unlink(path) }
                afterCommit { try? storage.publish(id) }
            }
            return AttachmentToken(id: id, length: staged.length, contentType: contentType, metadata: metadata)
        }
    }

    /// Adds the file at `path` as an attachment inside this transaction, streamed as
    /// `Store.addAttachment(fromFile:)` does: only a regular file is read (anything else is
    /// `AttachmentError.sourceNotRegularFile` at once; a missing or unreadable one
    /// `sourceNotFound` or `sourceUnreadable`), and a file larger than the disk's free
    /// space is `StoreError.diskFull` before anything is written.
    public func addAttachment(fromFile path: String, contentType: String? = nil, metadata: [String: String] = [:])
        throws -> AttachmentToken
    {
        try checkActive()
        let source = try AttachmentSourceFile(path: path, layout: store.layout)
        let type = contentType ?? AttachmentStorage.contentType(forExtension: (path as NSString).pathExtension)
        return try addAttachment(contentType: type, metadata: metadata) { sink in try source.stream(into: sink) }
    }

    /// Adds `data` as an attachment inside this transaction.
    public func addAttachment(_ data: Data, contentType: String? = nil, metadata: [String: String] = [:]) throws
        -> AttachmentToken
    {
        try addAttachment(contentType: contentType, metadata: metadata) { sink in
            try data.withUnsafeBytes { try sink($0) }
        }
    }

    /// Removes an attachment inside this transaction; its file is deleted after the commit.
    /// Returns false when there is no such attachment.
    @discardableResult
    public func removeAttachment(_ id: String) throws -> Bool {
        try removeAttachment(id, checkingHolders: true)
    }

    /// `removeAttachment(_:)`; with `checkingHolders`, an attachment a feature holds (the search
    /// index's stored originals) is refused with `AttachmentError.heldByFeature` (removed, the
    /// index kept pointing at a file that was gone).
    func removeAttachment(_ id: String, checkingHolders: Bool) throws -> Bool {
        try checkActive()
        guard AttachmentStorage.isValidID(id) else { return false }
        if checkingHolders {
            for feature in store.configuration.allFeatures where try feature.heldAttachments(connection).contains(id) {
                throw AttachmentError.heldByFeature(id: id, feature: feature.identifier)
            }
        }
        return try savepoint {
            let storage = store.attachmentStorage
            guard try storage.recordRemoval(id, db: connection) else { return false }
            let holds = store.backupHolds
            // A running backup's snapshot may still list it: its file then waits for the backup.
            afterCommit { if holds.mayUnlink(id) { storage.unlinkRemoved(id) } }
            return true
        }
    }
}
