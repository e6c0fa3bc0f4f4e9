import Foundation

/// The files and rows behind a store's attachments.
///
/// Writing: content is sealed (or, in an unencrypted store, copied) into `staging/<id>` while a
/// keyed hash of the plaintext is computed; committing either finds identical content already
/// stored (same keyed hash: the staged file is dropped and the existing id returned) or records
/// it, and once the row is committed the staged file is renamed into `attachments/<id>`
/// (`publish`). Removing records the id in `attachment_removals` in the same transaction as the
/// row's deletion, and unlinks the file after the commit.
///
/// So every state a crash leaves is provable at the next open (`reconcile`, after the key is
/// verified): a staged file with a row was committed (its rename is finished), one without a
/// row never was (it is deleted); a removal record names a file whose removal committed. A file
/// in `attachments/` that no row and no removal record names is never deleted — only reported
/// by `verify` — because nothing proves it unneeded.
package struct AttachmentStorage {
    let layout: StoreLayout
    /// Attachments master key (nil: unencrypted store, plain files).
    let masterKey: SecureBytes?
    /// Key of the content hash used for deduplication (nil: unencrypted store, unkeyed hash).
    package let deduplicationKey: SecureBytes?
    /// Removals whose files are gone, whose records the next removal deletes (the store's).
    private let finishedRemovals: FinishedRemovals

    init(layout: StoreLayout, dataKey: SecureBytes?, finishedRemovals: FinishedRemovals = FinishedRemovals()) {
        self.layout = layout
        self.finishedRemovals = finishedRemovals
        self.masterKey = dataKey.map { Sodium.deriveSubkey(from: $0, id: 2, context: "cdxattch") }
        self.deduplicationKey = dataKey.map { Sodium.deriveSubkey(from: $0, id: 3, context: "cdxdedup") }
    }

    /// A content file sealed into staging, not yet visible.
    package struct Staged: Sendable {
        package let id: String
        package let path: String
        package let length: UInt64
        package let contentHash: [UInt8]
    }

    /// Path of an attachment's file.
    package func path(of id: String) -> String { layout.attachments + "/" + id }

    /// Whether `id` has the shape of an attachment id (so it can never name another file).
    static func isValidID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Streams content from `produce` (which calls its argument with successive pieces) into a
    /// staged file.
    package func stage(_ produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws -> Staged {
        try Store.wrapSystem {
            try FileSystem.createDirectory(layout.staging)
            try FileSystem.createDirectory(layout.attachments)
        }
        let id = Sodium.randomBytes(16).map { String(format: "%02x", $0) }.joined()
        let stagingPath = layout.staging + "/" + id
        let hash = Sodium.ContentHash(key: deduplicationKey)
        do {
            let length: UInt64
            if let masterKey {
                let writer = try AttachmentCipherWriter(path: stagingPath, attachmentID: id, masterKey: masterKey)
                try produce { bytes in try writer.write(bytes, hashing: hash) }
                length = try writer.finish(synchronize: true)
            } else {
                let file = try FileDescriptor(path: stagingPath, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
                var written: UInt64 = 0
                try produce { bytes in
                    try hash.update(bytes, concurrentlyWith: { try file.writeAll(bytes) })
                    written += UInt64(bytes.count)
                }
                try file.sync()
                length = written
            }
            return Staged(id: id, path: stagingPath, length: length, contentHash: hash.finish())
        } catch {
            unlink(stagingPath)
            throw Self.typedWriteFailure(error, path: stagingPath)
        }
    }

    /// A failed write of an attachment file typed as every other store write's is: a full disk,
    /// missing permissions or a failing device are the environment's (`StoreError`); anything
    /// else is returned as it is.
    static func typedWriteFailure(_ error: Error, path: String) -> Error {
        switch error {
        case AttachmentError.io(_, let operation, let code):
            let typed = StoreError.classifying(SystemError(operation: operation, path: path, errno: code))
            if case .system = typed { return error }
            return typed
        case let error as SystemError:
            return StoreError.classifying(error)
        default:
            return error
        }
    }

    /// Records, in the caller's write transaction, that the application added attachment `id`
    /// (new, or resolved to content already stored): a feature that stored the same content for
    /// itself (the search index's copies) never removes it (`attachment_claims`, FORMAT.md). Kept
    /// by the store, not told to the features: a program without the search feature adds too
    /// (review 28b). Removing the attachment forgets the claim.
    package func recordClaim(_ id: String, db: Connection) throws {
        try db.execute("INSERT OR IGNORE INTO attachment_claims (id) VALUES (?)", [.text(id)])
    }

    /// Whether the application added attachment `id` (`recordClaim`).
    package static func isClaimed(_ id: String, db: Connection) throws -> Bool {
        try db.scalar("SELECT 1 FROM attachment_claims WHERE id = ?", [.text(id)]) != nil
    }

    /// Records a staged file in the caller's write transaction; returns the id of the stored
    /// content (an existing one when the same content is already stored, the staged file then
    /// being dropped). Once the transaction commits, call `publish(_:)` for a new id.
    ///
    /// An existing row of the same hash is taken only when its content is the staged content,
    /// byte for byte: the hash identifies content only against those without a key (whoever
    /// holds one can make two contents hash equal, FORMAT.md 7.4), and a later `attach` must
    /// never come back as other bytes. Content that differs is stored apart, under the
    /// duplicate form of its hash (as a conversion records a second copy).
    package func commit(_ staged: Staged, db: Connection, contentType: String?, metadata: [String: String]) throws
        -> String
    {
        var contentHash = staged.contentHash
        if let existing = try db.scalar(
            "SELECT id FROM attachments WHERE content_hash = ?", [.blob(staged.contentHash)])?.textValue
        {
            if try sameContent(existing, staged) {
                unlink(staged.path)
                return existing
            }
            if let copy = try storedApartCopy(of: staged, db: db) {
                unlink(staged.path)
                return copy
            }
            contentHash = Sodium.ContentHash.duplicateForm(
                of: staged.contentHash, id: staged.id, key: deduplicationKey)
        }
        let metadataJSON = String(decoding: try JSONEncoder().encode(metadata), as: UTF8.self)
        try db.execute(
            "INSERT INTO attachments (id, content_hash, length, content_type, metadata) VALUES (?, ?, ?, ?, ?)",
            [
                .text(staged.id), .blob(contentHash), .integer(Int64(staged.length)),
                contentType.map { .text($0) } ?? .null, .text(metadataJSON),
            ])
        return staged.id
    }

    /// A copy of the staged content already stored apart under the duplicate form of its hash
    /// (because the row holding the hash itself had other bytes, or could not be read), so that
    /// content meeting such a row is stored apart once, not at every add. Only looked for then:
    /// it reads the rows of the same length.
    private func storedApartCopy(of staged: Staged, db: Connection) throws -> String? {
        let rows = try db.rows(
            "SELECT id, content_hash FROM attachments WHERE length = ? ORDER BY id",
            [.integer(Int64(staged.length))])
        for row in rows {
            guard let id = row[0].textValue, case .blob(let hash) = row[1] else { continue }
            let form = Sodium.ContentHash.duplicateForm(of: staged.contentHash, id: id, key: deduplicationKey)
            if hash == form, try sameContent(id, staged) { return id }
        }
        return nil
    }

    /// Whether recorded attachment `id` holds exactly the staged content: both read (and, when
    /// encrypted, authenticated) chunk by chunk, in flat memory. A recorded file that cannot be
    /// read (damaged, missing) is not the same content: the new one is stored apart, whole. The
    /// staged file's own errors are thrown.
    private func sameContent(_ id: String, _ staged: Staged) throws -> Bool {
        let new = try AttachmentReader(
            id: staged.id, path: staged.path, masterKey: masterKey, recordedLength: staged.length)
        guard
            let existing = try? AttachmentReader(
                id: id, path: readablePath(of: id), masterKey: masterKey, recordedLength: staged.length),
            existing.length == new.length
        else { return false }
        // The staged file is read in windows of 8 MiB (its chunks opened on both cores, as any
        // large read), the recorded one chunk by chunk beside it.
        let windowSize: UInt64 = 8 << 20
        var window = Data()
        var windowStart: UInt64 = 0
        var offset: UInt64 = 0
        var same = true
        var stagedError: Error?
        do {
            try existing.forEachChunk { chunk in
                var consumed = 0
                while same, consumed < chunk.count {
                    if offset >= windowStart + UInt64(window.count) {
                        windowStart = offset
                        do {
                            window = try new.read(range: offset..<min(new.length, offset + windowSize))
                        } catch {
                            stagedError = error
                            throw error
                        }
                        guard !window.isEmpty else {
                            same = false
                            return
                        }
                    }
                    let inWindow = Int(offset - windowStart)
                    let count = min(chunk.count - consumed, window.count - inWindow)
                    same = window.withUnsafeBytes { bytes in
                        memcmp(bytes.baseAddress! + inWindow, chunk.baseAddress! + consumed, count) == 0
                    }
                    consumed += count
                    offset += UInt64(count)
                }
            }
        } catch {
            if let stagedError { throw stagedError }
            return false
        }
        return same
    }

    /// Moves a committed attachment's staged file into `attachments/` (durably). Until then
    /// readers find it in `staging/` (see `readablePath(of:)`); a crash before it is finished by
    /// the next open.
    ///
    /// When `attachments/` and `staging/` are on different file systems (one of them a mount
    /// point, or a link to another disk), no rename can move the file: it stays committed in
    /// `staging/`, where readers find it, and nothing fails.
    package func publish(_ id: String) throws {
        try Store.wrapSystem {
            do {
                try FileSystem.rename(layout.staging + "/" + id, to: path(of: id))
            } catch let error as SystemError where error.errno == EXDEV {
                return
            }
            try FileSystem.syncDirectory(layout.attachments)
        }
    }

    /// Where the content of a recorded attachment is now: `attachments/<id>`, or `staging/<id>`
    /// between its commit and its `publish`.
    func readablePath(of id: String) -> String {
        let published = path(of: id)
        if FileSystem.exists(published) { return published }
        let staged = layout.staging + "/" + id
        return FileSystem.exists(staged) ? staged : published
    }

    /// Deletes a recorded attachment's row in the caller's transaction and records the removal,
    /// so that its file is provably unneeded; false when there is no such row. Unlink the file
    /// with `finishRemoval(_:db:)` once the transaction commits.
    func recordRemoval(_ id: String, db: Connection) throws -> Bool {
        try db.execute("DELETE FROM attachments WHERE id = ?", [.text(id)])
        guard db.changes > 0 else { return false }
        try db.execute("DELETE FROM attachment_claims WHERE id = ?", [.text(id)])
        try forgetFinishedRemovals(db: db)
        try db.execute("INSERT OR IGNORE INTO attachment_removals (id) VALUES (?)", [.text(id)])
        return true
    }

    /// Deletes, in the caller's transaction, the records of earlier removals whose files
    /// `unlinkRemoved` saw go (`FinishedRemovals`), each looked at once: its files provably absent
    /// from `attachments/` and `staging/`, or its id recorded again. The records otherwise stayed
    /// until the next open: a store kept open grew by one row per removal (resources audit 4). A
    /// transaction rolled back leaves its records to the next open's `reconcile`.
    private func forgetFinishedRemovals(db: Connection) throws {
        for id in finishedRemovals.take() where Self.isValidID(id) {
            let recordedAgain = try db.scalar("SELECT 1 FROM attachments WHERE id = ?", [.text(id)]) != nil
            guard
                recordedAgain
                    || (Self.isProvablyAbsent(path(of: id)) && Self.isProvablyAbsent(layout.staging + "/" + id))
            else { continue }
            try db.execute("DELETE FROM attachment_removals WHERE id = ?", [.text(id)])
        }
    }

    /// Whether `path` does not exist, by the system's own word (`ENOENT`): a path that cannot be
    /// looked at (no permission on its folder) may exist.
    private static func isProvablyAbsent(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) != 0 && errno == ENOENT
    }

    /// Unlinks the file of a committed removal (its record goes with the next removal once the
    /// file is gone, or at the next open's `reconcile`).
    func unlinkRemoved(_ id: String) {
        unlink(path(of: id))
        unlink(layout.staging + "/" + id)
        // Its record may go once the removal is durable (a crash before the sync leaves the file).
        guard (try? FileSystem.syncDirectory(layout.attachments)) != nil else { return }
        finishedRemovals.add(id)
    }

    /// The recorded token of `id`, or nil.
    static func token(id: String, db: Connection) throws -> AttachmentToken? {
        guard
            let row = try db.rows("SELECT length, content_type, metadata FROM attachments WHERE id = ?", [.text(id)])
                .first
        else {
            return nil
        }
        let metadata =
            (try? JSONDecoder().decode([String: String].self, from: Data((row[2].textValue ?? "{}").utf8))) ?? [:]
        return AttachmentToken(
            id: id, length: UInt64(row[0].integerValue ?? 0), contentType: row[1].textValue, metadata: metadata)
    }

    /// Finishes what a crash interrupted, deleting only what is provably unneeded (see the type's
    /// documentation): committed staged files are published, uncommitted ones deleted, removed
    /// ones unlinked; a `staging/` kept elsewhere is left as it is. Called at open, after the key
    /// is verified and before anyone can add attachments.
    func reconcile(db: Connection) throws {
        // A `staging/` kept elsewhere (a link, a mount point, another file system) may be shared:
        // by a copy of the store made with `cp -a`, or by whatever else the link names. Nothing in
        // it is then provably this store's, to remove or to move: its files stay as they are
        // (readers find a committed one there, as after a rename that could not cross).
        var staged = FileSystem.contents(of: layout.staging)
        if !staged.isEmpty && Store.isElsewhere(layout.staging, from: layout.directory) { staged = [] }
        let removals = try db.rows("SELECT id FROM attachment_removals").compactMap { $0.first?.textValue }
        guard FileSystem.exists(layout.staging) || !removals.isEmpty else { return }
        let recorded = Set(try db.rows("SELECT id FROM attachments").compactMap { $0.first?.textValue })
        try Store.wrapSystem {
            // Only files named as staged attachments are ours: anything else put in `staging/`
            // (a folder, another name) is left where it is.
            for name in staged where Self.isValidID(name) && FileKind.of(layout.staging + "/" + name).isRegular {
                if recorded.contains(name) && FileKind.of(path(of: name)).isRegular {
                    // Its file is in `attachments/` already (a conversion wrote this generation's
                    // copy while the old one waited here): the staged one is stale, never
                    // published over it. Best effort: one that cannot be removed is never read (the
                    // published file comes first) and must not keep the store from opening.
                    try? FileSystem.removeFile(layout.staging + "/" + name)
                } else if recorded.contains(name) {
                    try FileSystem.createDirectory(layout.attachments)
                    try publish(name)
                } else {
                    try FileSystem.removeFile(layout.staging + "/" + name)
                }
            }
            for id in removals where Self.isValidID(id) && !recorded.contains(id) {
                try FileSystem.removeFile(path(of: id))
            }
            if FileSystem.isDirectory(layout.attachments) { try FileSystem.syncDirectory(layout.attachments) }
            // An empty `staging/` goes (best effort: one that is a link or a mount point stays).
            if case .directory = FileKind.of(layout.staging), FileSystem.contents(of: layout.staging).isEmpty,
                rmdir(layout.staging) == 0
            {
                try FileSystem.syncDirectory(layout.directory)
            }
        }
        if !removals.isEmpty { try db.execute("DELETE FROM attachment_removals") }
    }

    /// A guess at the content type from a file extension.
    package static func contentType(forExtension pathExtension: String) -> String? {
        switch pathExtension.lowercased() {
        case "pdf": return "application/pdf"
        case "txt": return "text/plain"
        case "md", "markdown": return "text/markdown"
        case "json": return "application/json"
        case "html", "htm": return "text/html"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        default: return nil
        }
    }
}
