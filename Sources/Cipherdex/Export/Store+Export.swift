import CipherdexStore
import Foundation

/// What `Store.export(to:)` wrote.
public struct ExportSummary: Sendable, Equatable {
    /// Collections written (one `collections/<name>.jsonl` each).
    public var collections = 0
    /// Documents written, over all collections.
    public var documents = 0
    /// Attachments written (one `attachments/<id>` file each).
    public var attachments = 0
    /// Indexed documents listed in `search/documents.jsonl`.
    public var searchDocuments = 0
    /// Page and annotation texts written to `search/pages.jsonl`.
    public var pages = 0
}

extension Store {
    /// Writes everything the store holds, as plaintext, into `directory` (created 0700 if
    /// missing; refused with `ExportError.destinationNotEmpty` unless it is an empty directory):
    /// every collection as JSON Lines, every attachment as a file named by its id with a manifest
    /// (content type, metadata, the documents and index entries that reference it), and the
    /// search index's documents and page text. The layout and the exact bytes are specified in
    /// FORMAT.md ("Export layout"), so `tools/cipherdex-recover` writes the same files.
    ///
    /// The output is not encrypted: whoever can read `directory` can read the data. A full disk,
    /// missing permissions or a failing device while writing is `StoreError.diskFull`,
    /// `.permissionDenied` or `.ioError`, naming the file; what the export wrote is removed.
    @discardableResult
    public func export(to directory: String) throws -> ExportSummary {
        try export(to: directory, cancellation: nil)
    }

    /// The async form of `export(to:)`: runs on Cipherdex's own queue and, when the task is
    /// cancelled, stops at its next check (every 256 rows, between attachments and their chunks)
    /// with `CancellationError`, after removing what it wrote, as a failed export does.
    @discardableResult
    public func exportAsync(to directory: String) async throws -> ExportSummary {
        try await BlockingWork.run { cancellation in try self.export(to: directory, cancellation: cancellation) }
    }

    func export(to directory: String, cancellation: WorkCancellation?) throws -> ExportSummary {
        guard !FileSystem.isWithin(directory, path) else {
            throw ExportError.destinationInsideStore(path: directory, store: path)
        }
        let created = try Self.prepareExportDirectory(directory)
        var summary = ExportSummary()
        let writer = ExportWriter(root: directory)
        do {
            try exportContent(writer: writer, summary: &summary, cancellation: cancellation)
        } catch {
            // A failed export leaves no partial plaintext: the files it wrote are removed, and the
            // directory when the export made it.
            Self.removeExport(directory, names: writer.createdTopLevelNames, removingDirectory: created)
            if let error = error as? DatabaseError {
                throw StoreError.classifyingPageRead(error, database: databasePath, encrypted: isEncrypted)
            }
            throw error
        }
        return summary
    }

    /// Writes the export's files with `writer` into its directory (prepared, empty).
    private func exportContent(
        writer: ExportWriter, summary: inout ExportSummary, cancellation: WorkCancellation?
    ) throws {
        try read { db in
            try writer.makeDirectory("collections")
            try writer.makeDirectory("attachments")
            var references: [String: [[UInt8]]] = [:]
            var collectionLines: [UInt8] = []
            let collections = try db.rows("SELECT name, indexed_fields FROM collections ORDER BY name")
            for row in collections {
                let name = row[0].textValue ?? ""
                // It names `collections/<name>.jsonl`: `.` and `..` (written by earlier builds)
                // are safe there.
                try Self.checkFileName(name + ".jsonl", what: "collection name \(name.debugDescription)")
                var line = ExportLine()
                line.string("name", name)
                line.raw("indexedFields", Array((row[1].textValue ?? "[]").utf8))
                collectionLines += line.line
                let file = try writer.open("collections/\(name).jsonl")
                try db.forEachRow(
                    "SELECT id, body FROM documents WHERE collection = ? ORDER BY id", [.text(name)]
                ) { document in
                    let id = document[0].textValue ?? ""
                    let body = document[1].blobValue ?? Array((document[1].textValue ?? "").utf8)
                    var record = ExportLine()
                    record.string("id", id)
                    record.raw("body", body)
                    try file.write(record.line)
                    summary.documents += 1
                    if summary.documents % 256 == 0 { try cancellation?.check() }
                    var referenced = Set<String>()
                    if Self.mayReferenceAttachments(body), let value = try? JSONValue(parsing: body) {
                        Self.collectReferences(value, into: &referenced)
                    }
                    var reference = ExportLine()
                    reference.string("collection", name)
                    reference.string("id", id)
                    for attachment in referenced { references[attachment, default: []].append(reference.object) }
                }
                try file.close()
                summary.collections += 1
            }
            try writer.write("collections.jsonl", collectionLines)
            let hasSearch =
                try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'search_pages'")?
                .integerValue == 1
            var holders: [String: [[UInt8]]] = [:]
            if hasSearch {
                summary.searchDocuments = try Self.exportSearchDocuments(
                    db: db, writer: writer, holders: &holders, cancellation: cancellation)
                summary.pages = try Self.exportPages(db: db, writer: writer, cancellation: cancellation)
            }
            let manifest = try writer.open("attachments.jsonl")
            let attachments = try db.rows(
                "SELECT id, length, content_type, metadata FROM attachments ORDER BY id")
            for row in attachments {
                try cancellation?.check()
                let id = row[0].textValue ?? ""
                try Self.checkFileName(id, what: "attachment id")
                var line = ExportLine()
                line.string("id", id)
                line.integer("length", row[1].integerValue ?? 0)
                line.string("contentType", row[2].textValue)
                line.raw("metadata", Array((row[3].textValue ?? "{}").utf8))
                line.array("referencedBy", references[id] ?? [])
                line.array("heldBySearch", holders[id] ?? [])
                try manifest.write(line.line)
                let file = try writer.open("attachments/\(id)")
                try attachment(id).forEachChunk { chunk in
                    try cancellation?.check()
                    try file.write(Array(chunk))
                }
                try file.close()
                summary.attachments += 1
            }
            try manifest.close()
        }
    }

    /// Removes what a failed export wrote into `directory` (`names`, the top-level names it
    /// created: never those another export into the same folder made meanwhile, multi-process
    /// audit 28), and the directory itself when the export created it and nothing else is left
    /// (best effort: what cannot be removed stays, and the export's error stands).
    static func removeExport(_ directory: String, names: [String], removingDirectory: Bool) {
        for name in names { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
        if removingDirectory { _ = rmdir(directory) }
    }

    /// `search/documents.jsonl`; fills `holders` (attachment id → uids as JSON strings).
    private static func exportSearchDocuments(
        db: Connection, writer: ExportWriter, holders: inout [String: [[UInt8]]], cancellation: WorkCancellation?
    ) throws -> Int {
        try writer.makeDirectory("search")
        let file = try writer.open("search/documents.jsonl")
        var count = 0
        try db.forEachRow(
            """
            SELECT uid, attachment_id, file_extension, title, metadata, state, reason, page_count
            FROM search_documents ORDER BY uid
            """
        ) { row in
            let uid = row[0].textValue ?? ""
            var line = ExportLine()
            line.string("uid", uid)
            line.string("attachmentId", row[1].textValue)
            line.string("fileExtension", row[2].textValue ?? "")
            line.string("title", row[3].textValue)
            line.raw("metadata", Array((row[4].textValue ?? "{}").utf8))
            line.string("state", row[5].textValue ?? "")
            line.string("reason", row[6].textValue)
            line.integer("pageCount", row[7].integerValue ?? 0)
            try file.write(line.line)
            if let attachment = row[1].textValue {
                var encoded: [UInt8] = []
                ExportLine.appendString(uid, to: &encoded)
                holders[attachment, default: []].append(encoded)
            }
            count += 1
            if count % 256 == 0 { try cancellation?.check() }
        }
        try file.close()
        return count
    }

    /// `search/pages.jsonl`: the stored text of every page and annotation, from FTS4's content
    /// table (`search_text_content.c0body`, docid = `search_pages.rowid`), decompressed
    /// (`PageTextCompression`).
    private static func exportPages(db: Connection, writer: ExportWriter, cancellation: WorkCancellation?) throws
        -> Int
    {
        let file = try writer.open("search/pages.jsonl")
        var count = 0
        try db.forEachRow(
            """
            SELECT p.uid, p.page_index, p.kind, p.ordinal, cipherdex_uncompress(t.c0body)
            FROM search_pages p JOIN search_text_content t ON t.docid = p.rowid
            ORDER BY p.uid, p.page_index, p.kind, p.ordinal, p.rowid
            """
        ) { row in
            var line = ExportLine()
            line.string("uid", row[0].textValue ?? "")
            line.integer("page", row[1].integerValue ?? 0)
            line.integer("kind", row[2].integerValue ?? 0)
            line.integer("ordinal", row[3].integerValue ?? 0)
            line.string("text", row[4].textValue ?? "")
            try file.write(line.line)
            count += 1
            if count % 256 == 0 { try cancellation?.check() }
        }
        try file.close()
        return count
    }

    /// Whether a stored body may hold a reference: its canonical bytes contain the reference
    /// key as written (canonical text escapes only `"`, `\` and control characters, none of which
    /// the key has), as `DocumentStorage.scanAllBodies` assumes. A body without it is not parsed:
    /// a large document costs a byte search, not a tree.
    private static func mayReferenceAttachments(_ body: [UInt8]) -> Bool {
        let key = Array(AttachmentToken.referenceKey.utf8)
        return body.withUnsafeBufferPointer { bytes in
            guard bytes.count >= key.count else { return false }
            for start in 0...(bytes.count - key.count) where bytes[start] == key[0] {
                if UnsafeBufferPointer(rebasing: bytes[start..<(start + key.count)]).elementsEqual(key) { return true }
            }
            return false
        }
    }

    /// The ids of every `{"cipherdexAttachment": "<id>"}` object inside `value`.
    private static func collectReferences(_ value: JSONValue, into ids: inout Set<String>) {
        switch value {
        case .object(let members):
            if case .string(let id)? = members[AttachmentToken.referenceKey] { ids.insert(id) }
            for member in members.values { collectReferences(member, into: &ids) }
        case .array(let elements):
            for element in elements { collectReferences(element, into: &ids) }
        default:
            break
        }
    }

    /// Names that become file names must stay inside the export: a database that holds a `/`,
    /// `.`, `..` or an empty name was not written by Cipherdex (which allows none of them).
    private static func checkFileName(_ name: String, what: String) throws {
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(UInt8(ascii: "/")),
            !name.utf8.contains(0)
        else {
            throw StoreError.storeCorrupted(reason: "the database holds an invalid \(what)")
        }
    }

    /// Creates `directory` (0700) or checks that it is an empty directory; true when it created it.
    private static func prepareExportDirectory(_ directory: String) throws -> Bool {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            let entries = isDirectory.boolValue ? try? FileManager.default.contentsOfDirectory(atPath: directory) : nil
            guard let entries, entries.isEmpty else { throw ExportError.destinationNotEmpty(path: directory) }
            return false
        }
        try ExportWriter.creatingDirectory(directory)
        return true
    }
}
