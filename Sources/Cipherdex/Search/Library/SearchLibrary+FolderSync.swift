import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension SearchLibrary {
    /// Syncs the index with a folder, like a file-system data source: new files are added,
    /// changed ones re-indexed (size and modification time first, then the content hash), and
    /// deleted ones removed. With OCR on, a PDF last indexed without OCR or in other languages
    /// counts as changed (only pages without a kept result are recognised). A document's UID is its path relative to the folder; a UID that
    /// already belongs to another document (added with `add`, or from another folder) is
    /// reported in `conflicts` and left alone. Files are indexed in place: no copy is stored.
    /// Names that are not valid UTF-8 and folders that cannot be read are reported in `skipped`
    /// (documents under such a folder stay indexed); a root that cannot be read throws
    /// `SearchError.unreadable`.
    public func sync(folder: String, allowedExtensions: Set<String> = ["pdf", "txt", "md"]) throws -> FolderSyncSummary
    {
        try sync(folder: folder, allowedExtensions: allowedExtensions, cancellation: nil)
    }

    /// `sync(folder:allowedExtensions:)`, stopping between folders and between documents once
    /// `cancellation` is set: the documents this call queued are taken off the queue again
    /// (removals already made stay made) and it throws `CancellationError`.
    func sync(folder: String, allowedExtensions: Set<String>, cancellation: WorkCancellation?) throws
        -> FolderSyncSummary
    {
        guard let store else { throw StoreError.closed }
        try store.refuseWhenReadOnly()
        let root = try Self.resolvedRoot(folder)
        guard FileSystem.isDirectory(root) else { throw SearchError.notAFolder(folder) }
        let allowed = Set(
            allowedExtensions.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")) })
        // Another root's document under a UID conflicts with a file, also in another Unicode
        // normalization (`owners` compares as Swift strings do); this root's documents are known
        // by their exact bytes, so a file renamed from one normalization to the other is a new
        // UID and its old one is removed.
        var owners: [String: String?] = [:]
        // Queued before stored: a job that leaves the queue meanwhile is in the read below. A
        // UID queued by `add` or another root's sync is theirs, as a stored row would make it.
        let queuedElsewhere = uidsQueued(byOtherThan: root)
        let known:
            [UTF8Key: (
                size: Int64?, modified: Double?, indexed: Bool, ocrLanguages: String?, contentHash: [UInt8]?,
                hasOCRPages: Bool
            )] =
                try store.read { db in
                    var rows: [UTF8Key: (Int64?, Double?, Bool, String?, [UInt8]?, Bool)] = [:]
                    try db.forEachRow(
                        """
                        SELECT uid, source_root, source_size, source_mtime, state, ocr_languages, content_hash,
                            ocr_pages IS NOT NULL AND ocr_pages <> '[]'
                        FROM search_documents
                        """
                    ) { row in
                        guard let uid = row[0].textValue else { return }
                        owners[uid] = row[1].textValue
                        if row[1].textValue == root {
                            rows[UTF8Key(uid)] = (
                                row[2].integerValue, row[3].doubleValue, row[4].textValue == "indexed",
                                row[5].textValue, row[6].blobValue, row[7].integerValue == 1
                            )
                        }
                    }
                    return rows
                }
        // Of two names that are one text, the one already indexed stays the indexed one.
        let walk = try FolderWalk(
            root: root, allowed: allowed, preferring: Set(known.keys), cancellation: cancellation)
        let files = walk.files
        let fileKeys = Set(files.keys.map(UTF8Key.init))
        var removedPages = 0
        defer { IndexSpaceReclaim.run(store: store, removedPages: removedPages) }
        // Removed first: a document renamed between normalizations, whose removal would take the
        // new name's queued job with it (the queue compares UIDs as strings).
        let gone = known.keys.filter { !fileKeys.contains($0) && !walk.isInUnreadableFolder($0.text) }
            .map(\.text).sorted()
        // With OCR on, a PDF last indexed without it (or in other languages) is not unchanged: its
        // scanned pages are recognised now (kept results are reused; only missing pages run). With
        // OCR off, recognised text already in the index stays.
        let ocrLanguages = ocrSettings(for: "pdf")?.languageString
        if files.keys.contains(where: { Self.fileExtension($0) == "pdf" }) {
            // Before anything is queued: a missing helper is one typed error, not a failed PDF each.
            try checkExtractionHelper(for: "pdf")
        }
        var summary = FolderSyncSummary()
        summary.skipped = walk.skipped
        for uid in gone {
            try cancellation?.check()
            let pages = try store.read { db in
                try db.scalar("SELECT count(*) FROM search_pages WHERE uid = ?", [.text(uid)])?.integerValue ?? 0
            }
            if try remove(uid: uid, reclaiming: false) {
                summary.removed.append(uid)
                removedPages += Int(pages)
            }
        }
        var queued: [String] = []
        var finished = false
        defer { if !finished { for uid in queued where cancellation?.isCancelled == true { cancel(uid: uid) } } }
        for (uid, facts) in files.sorted(by: { $0.key < $1.key }) {
            try cancellation?.check()
            let storedElsewhere = owners[uid].map { $0 != root } == true && known[UTF8Key(uid)] == nil
            if storedElsewhere || queuedElsewhere.contains(uid) {
                summary.conflicts.append(uid)
                continue
            }
            // A document that failed (or was locked) is tried again whatever its facts: what made
            // it fail (a missing helper, a password, a limit) may have changed since. So is a PDF,
            // with OCR on, whose scanned pages are not all recognised or kept (a time-out, the
            // document's OCR budget spent): those pages are tried again, as `add` does (the sync
            // took it for unchanged and left them for good).
            let previous = known[UTF8Key(uid)]
            // The time within two units of its last place: builds before 2026-12-01 computed the
            // same `st_mtim` through `Date`, a last bit apart (upgrade audit 4: untouched files
            // reported changed, read again).
            let sameFacts =
                previous.map { previous in
                    previous.size == facts.size
                        && previous.modified.map { abs($0 - facts.modified) <= 2 * facts.modified.ulp } == true
                } ?? false
            let isPDFWithOCR = ocrLanguages != nil && Self.fileExtension(uid) == "pdf"
            var ocrPagesLeft = false
            if let previous, sameFacts, previous.indexed, isPDFWithOCR, previous.ocrLanguages == ocrLanguages,
                previous.hasOCRPages
            {
                ocrPagesLeft = try !store.read {
                    try SearchIndexWriter.isOCRCurrent(
                        uid: uid, contentHash: previous.contentHash ?? [], languages: ocrLanguages, db: $0)
                }
            }
            if let previous, sameFacts, previous.indexed, !ocrPagesLeft,
                !isPDFWithOCR || previous.ocrLanguages == ocrLanguages
            {
                summary.unchanged.append(uid)
                continue
            }
            var job = IndexJob(
                uid: uid, source: .file(path: root + "/" + uid, storeCopy: false),
                fileExtension: Self.fileExtension(uid))
            job.sourceRoot = root
            job.sourceSize = facts.size
            job.sourceModified = facts.modified
            try enqueue(job)
            queued.append(uid)
            if let previous {
                if sameFacts && (!previous.indexed || ocrPagesLeft) {
                    summary.retried.append(uid)
                } else {
                    summary.changed.append(uid)
                }
            } else {
                summary.added.append(uid)
            }
        }
        finished = true
        return summary
    }

    /// The UIDs of documents queued or being indexed from another source than `root` (by `add`,
    /// or another folder's sync), as Swift strings compare (one Unicode normalization matches
    /// the other, as the queue does).
    func uidsQueued(byOtherThan root: String) -> Set<String> {
        state.withLock {
            var uids = Set(pending.filter { $0.sourceRoot != root }.map(\.uid))
            for (uid, source) in activeRoots where source != root { uids.insert(uid) }
            return uids
        }
    }

    /// `folder` absolute, its links and `.`/`..` resolved by the system from its bytes
    /// (`realpath`): through Foundation's `URL`, a working directory or link target whose name is
    /// not valid UTF-8 came back with U+FFFD in it, and a look-alike folder of that name was
    /// indexed instead (file-system audit 3). Such a path is refused: the root is recorded as text.
    static func resolvedRoot(_ folder: String) throws -> String {
        guard let resolved = realpath(folder, nil) else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw SearchError.notAFolder(folder) }
            throw SearchError.unreadable(path: folder, reason: String(cString: strerror(code)))
        }
        defer { free(resolved) }
        guard let root = String(validatingCString: resolved) else {
            let bytes = Array(UnsafeBufferPointer(start: resolved, count: strlen(resolved))).map {
                UInt8(bitPattern: $0)
            }
            throw SearchError.unreadable(
                path: folder,
                reason: "its full path, \(DirectoryEntries.escaped(bytes)), is not valid UTF-8 (a folder's path is "
                    + "recorded as text): rename the folder or the one it is in")
        }
        return root
    }

    /// Switches the tokenizer and rebuilds the index with it (in one transaction).
    public func setTokenizer(_ tokenizer: SearchTokenizerKind) throws {
        guard let store else { throw StoreError.closed }
        try store.transaction { tx in
            guard try SearchSchema.tokenizer(tx.connection) != tokenizer else { return }
            try SearchSchema.rebuild(tx.connection, tokenizer: tokenizer)
            // The marker is for migrations of one open only.
            try tx.connection.execute("DROP TABLE IF EXISTS temp.\(SearchSchema.recutMarker)")
        }
    }

    /// The tokenizer the index uses.
    public func tokenizer() throws -> SearchTokenizerKind {
        guard let store else { throw StoreError.closed }
        return try store.read { try SearchSchema.tokenizer($0) }
    }
}
