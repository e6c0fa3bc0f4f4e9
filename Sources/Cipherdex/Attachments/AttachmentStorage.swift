import Foundation

/// The files and rows behind a store's attachments.
///
/// Writing: content is sealed (or, in an unencrypted store, copied) into `staging/<id>` while a
/// keyed hash of the plaintext is computed; committing either finds identical content already
/// stored (same keyed hash: the staged file is dropped and the existing id returned) or renames
/// the staged file into `attachments/<id>` and records it. The rename happens before the row is
/// committed; a crash between leaves an unrecorded file, removed at the next open after the key
/// is verified, as is everything in `staging/`.
struct AttachmentStorage {
    let layout: StoreLayout
    /// Attachments master key (nil: unencrypted store, plain files).
    let masterKey: SecureBytes?
    /// Key of the content hash used for deduplication (nil: unencrypted store, unkeyed hash).
    let deduplicationKey: SecureBytes?

    init(layout: StoreLayout, dataKey: SecureBytes?) {
        self.layout = layout
        self.masterKey = dataKey.map { Sodium.deriveSubkey(from: $0, id: 2, context: "cdxattch") }
        self.deduplicationKey = dataKey.map { Sodium.deriveSubkey(from: $0, id: 3, context: "cdxdedup") }
    }

    /// A content file sealed into staging, not yet visible.
    struct Staged {
        let id: String
        let path: String
        let length: UInt64
        let contentHash: [UInt8]
    }

    /// Path of an attachment's file.
    func path(of id: String) -> String { layout.attachments + "/" + id }

    /// Whether `id` has the shape of an attachment id (so it can never name another file).
    static func isValidID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Streams content from `produce` (which calls its argument with successive pieces) into a
    /// staged file.
    func stage(_ produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws -> Staged {
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
            throw error
        }
    }

    /// Makes a staged file visible and records it, in the caller's write transaction; returns
    /// the id of the stored content (an existing one when the same content is already stored).
    func commit(_ staged: Staged, db: Connection, contentType: String?, metadata: [String: String]) throws -> String {
        if let existing = try db.scalar(
            "SELECT id FROM attachments WHERE content_hash = ?", [.blob(staged.contentHash)])?.textValue
        {
            unlink(staged.path)
            return existing
        }
        try Store.wrapSystem {
            try FileSystem.rename(staged.path, to: path(of: staged.id))
            try FileSystem.syncDirectory(layout.attachments)
        }
        let metadataJSON = String(decoding: try JSONEncoder().encode(metadata), as: UTF8.self)
        try db.execute(
            "INSERT INTO attachments (id, content_hash, length, content_type, metadata) VALUES (?, ?, ?, ?, ?)",
            [
                .text(staged.id), .blob(staged.contentHash), .integer(Int64(staged.length)),
                staged.length >= 0 ? (contentType.map { .text($0) } ?? .null) : .null, .text(metadataJSON),
            ])
        return staged.id
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

    /// Deletes files in `attachments/` that no row records (left by a crash between rename and
    /// commit, or between a removal's commit and its unlink). Called at open, after the key is
    /// verified and before anyone can add attachments.
    func removeUnrecordedFiles(db: Connection) throws {
        let files = FileSystem.contents(of: layout.attachments)
        guard !files.isEmpty else { return }
        let recorded = Set(try db.rows("SELECT id FROM attachments").compactMap { $0.first?.textValue })
        var removed = false
        for name in files where !recorded.contains(name) {
            try Store.wrapSystem { try FileSystem.removeFile(path(of: name)) }
            removed = true
        }
        if removed { try Store.wrapSystem { try FileSystem.syncDirectory(layout.attachments) } }
    }

    /// A guess at the content type from a file extension.
    static func contentType(forExtension pathExtension: String) -> String? {
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
