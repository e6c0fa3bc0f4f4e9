import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One backup's copy of the database and attachments into `destination.target`, inside the
/// source's read transaction (one snapshot for the attachment list and every page).
final class BackupRun {
    let store: Store
    let destination: BackupDestination
    let progress: Store.BackupProgressHandler?
    let cancellation: WorkCancellation?
    private var done: UInt64 = 0
    private var total: UInt64 = 0
    private var phase = BackupProgress.Phase.database

    /// The size of the pieces attachment files are copied in.
    static let pieceSize = 1 << 20

    init(
        store: Store, destination: BackupDestination, progress: Store.BackupProgressHandler?,
        cancellation: WorkCancellation?
    ) {
        self.store = store
        self.destination = destination
        self.progress = progress
        self.cancellation = cancellation
    }

    /// Reports progress; throws when cancelled.
    func report(_ phase: BackupProgress.Phase) throws {
        self.phase = phase
        try checkCancelled()
    }

    private func checkCancelled() throws {
        try cancellation?.check()
        if Task.isCancelled { throw BackupError.cancelled }
        guard let progress else { return }
        guard progress(BackupProgress(phase: phase, completedBytes: done, totalBytes: total)) else {
            throw BackupError.cancelled
        }
    }

    private struct Attachment {
        let id: String
        let length: UInt64
        let source: String
        let sourceSize: UInt64
        /// The recorded content hash (what a plain file's copy is checked against).
        let contentHash: [UInt8]?
    }

    /// Copies the snapshot `reader` is in (a read transaction) into the target generation.
    func copy(from reader: Connection, faultPoint: (BackupStep) throws -> Void) throws -> BackupSummary {
        let storage = store.attachmentStorage
        // The first read fixes the snapshot: the list and every page copied below are one commit.
        let rows = try reader.rows("SELECT id, length, content_hash FROM attachments ORDER BY id").compactMap {
            row -> (String, UInt64, [UInt8]?)? in
            guard let id = row[0].textValue, AttachmentStorage.isValidID(id), let length = row[1].integerValue
            else { return nil }
            return (id, UInt64(max(0, length)), row[2].blobValue)
        }
        let pageSize = UInt64(max(0, try reader.scalar("PRAGMA page_size")?.integerValue ?? 0))
        let pageCount = UInt64(max(0, try reader.scalar("PRAGMA page_count")?.integerValue ?? 0))
        let databaseBytes = pageSize * pageCount
        var copies: [Attachment] = []
        var reused: [String] = []
        // Reading the files the destination holds, to keep only whole ones, is checking.
        if destination.reusable != nil { try report(.verifying) }
        for (id, length, contentHash) in rows {
            let path = storage.readablePath(of: id)
            let kind = FileKind.of(path)
            guard case .regular(let size) = kind else {
                throw StoreError.storeCorrupted(
                    reason: kind.exists
                        ? "the file of attachment \(id), \(path), is \(kind.description), not a regular file"
                        : "the file of attachment \(id), \(path), is missing")
            }
            // A file the destination already holds is kept only when it authenticates (or, plain,
            // matches the recorded hash): a damaged one is copied again, so a backup never carries
            // damage forward and a restore over a damaged store repairs it.
            if let reusable = destination.reusable,
                case .regular(let previousSize) = FileKind.of(reusable.attachments + "/" + id), previousSize == size,
                try isIntact(reusable.attachments + "/" + id, id: id, length: length, contentHash: contentHash)
            {
                reused.append(id)
            } else {
                copies.append(
                    Attachment(id: id, length: length, source: path, sourceSize: size, contentHash: contentHash))
            }
        }
        total = databaseBytes + copies.reduce(0) { $0 + $1.sourceSize }
        let needed = total + total / 20 + (4 << 20)
        let available = try Store.wrapSystem { try FileSystem.availableBytes(at: destination.spaceProbePath) }
        guard available >= needed else {
            throw BackupError.insufficientSpace(path: destination.path, neededBytes: needed, availableBytes: available)
        }
        try report(.database)
        try copyDatabase(from: reader, pageSize: pageSize, attachmentCount: rows.count)
        try faultPoint(.databaseCopied)

        try report(.attachments)
        let target = destination.target
        try Store.wrapSystem { try FileSystem.createDirectory(target.attachments) }
        if let reusable = destination.reusable {
            try Store.wrapSystem {
                for id in reused {
                    let linked = target.attachments + "/" + id
                    try FileDescriptor.retrying(operation: "link", path: linked) {
                        link(reusable.attachments + "/" + id, linked)
                    }
                }
            }
        }
        var copiedBytes: UInt64 = 0
        for (number, attachment) in copies.enumerated() {
            copiedBytes += try copyFile(attachment, into: target.attachments + "/" + attachment.id, storage: storage)
            try faultPoint(.attachmentCopied(number))
        }
        try report(.verifying)
        for attachment in copies {
            // What reached the destination's disk, authenticated chunk by chunk (the length too);
            // a plain file (an unencrypted store) against its recorded content hash.
            let reader = try AttachmentReader(
                id: attachment.id, path: target.attachments + "/" + attachment.id, masterKey: storage.masterKey,
                recordedLength: attachment.length,
                recordedContentHash: storage.masterKey == nil ? attachment.contentHash : nil)
            guard reader.length == attachment.length else {
                throw BackupError.verificationFailed(reason: "attachment \(attachment.id) has the wrong length")
            }
            try reader.forEachChunk { _ in try checkCancelled() }
        }
        try Store.wrapSystem { try FileSystem.syncDirectory(target.attachments) }
        return BackupSummary(
            databaseBytes: databaseBytes, attachments: rows.count, attachmentsCopied: copies.count,
            attachmentsReused: reused.count, attachmentBytesCopied: copiedBytes,
            incremental: destination.reusable != nil)
    }

    /// Whether the file at `path` holds attachment `id` whole: authenticated chunk by chunk with
    /// the store's keys (the length too), or, in an unencrypted store, matching `contentHash`.
    /// Damage is false; a failing read of the disk is thrown.
    private func isIntact(_ path: String, id: String, length: UInt64, contentHash: [UInt8]?) throws -> Bool {
        let masterKey = store.attachmentStorage.masterKey
        do {
            let reader = try AttachmentReader(
                id: id, path: path, masterKey: masterKey, recordedLength: length,
                recordedContentHash: masterKey == nil ? contentHash : nil)
            guard reader.length == length else { return false }
            try reader.forEachChunk { _ in try checkCancelled() }
            return true
        } catch let error as AttachmentError {
            if case .io = error { throw AttachmentStorage.typedWriteFailure(error, path: path) }
            return false
        }
    }

    /// The database pages into a new owner-only file, checked and synced.
    private func copyDatabase(from reader: Connection, pageSize: UInt64, attachmentCount: Int) throws {
        let target = destination.target
        let cipher = store.metadata.withLock { $0.cipher }
        try Store.wrapSystem {
            let file = try FileDescriptor(path: target.database, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            try FileDescriptor.retrying(operation: "fchmod", path: file.path) { fchmod(file.rawValue, 0o600) }
        }
        let copy = try Connection(
            path: target.database, mode: .writer, key: store.dataKey?.sqlcipherRawKeyLiteral(), cipher: cipher,
            create: true)
        defer { copy.close() }
        do {
            try reader.copyPages(into: copy) { copied, _ in
                done = UInt64(copied) * pageSize
                try checkCancelled()
            }
        } catch let error as DatabaseError {
            // A page of the source that does not decrypt or authenticate: the source is damaged.
            throw StoreError.classifyingPageRead(error, database: store.layout.database, encrypted: store.isEncrypted)
        }
        try report(.verifying)
        let check = try copy.scalar("PRAGMA quick_check")?.textValue
        guard check == "ok" else {
            throw BackupError.verificationFailed(reason: "the database copy fails its check: \(check ?? "?")")
        }
        let count = try copy.scalar("SELECT count(*) FROM attachments")?.integerValue ?? -1
        guard count == Int64(attachmentCount) else {
            throw BackupError.verificationFailed(
                reason: "the database copy lists \(count) attachments, not \(attachmentCount)")
        }
        try copy.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        copy.close()
        try Store.wrapSystem {
            try FileDescriptor(path: target.database, flags: O_RDONLY).sync()
        }
        try report(.attachments)
    }

    /// Copies one attachment file as it is (the backup shares the data key), synced; returns
    /// the bytes copied.
    private func copyFile(_ attachment: Attachment, into path: String, storage: AttachmentStorage) throws -> UInt64 {
        try Store.wrapSystem {
            // A committed attachment moves from staging/ to attachments/ once: look again if the
            // file moved between the look and the open.
            let input: FileDescriptor
            do {
                input = try FileDescriptor(path: attachment.source, flags: O_RDONLY)
            } catch let error as SystemError where error.errno == ENOENT {
                input = try FileDescriptor(path: storage.readablePath(of: attachment.id), flags: O_RDONLY)
            }
            let output = try FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            var buffer = [UInt8](repeating: 0, count: Self.pieceSize)
            var copied: UInt64 = 0
            while true {
                let count = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
                if count == 0 { break }
                try buffer.withUnsafeBytes { try output.writeAll(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                copied += UInt64(count)
                done += UInt64(count)
                try checkCancelled()
            }
            try output.sync()
            return copied
        }
    }
}
