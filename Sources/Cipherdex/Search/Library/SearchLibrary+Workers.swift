import Foundation

extension SearchLibrary {
    /// Queues a job (replacing a queued job of the same UID) and makes sure workers run; with
    /// `replacingCanonicalTwins` (`add`), its write removes the UID's documents in another Unicode
    /// normalization.
    func enqueue(_ job: IndexJob, replacingCanonicalTwins: Bool = false) throws {
        guard let store, store.isOpen else { throw StoreError.closed }
        try store.refuseWhenReadOnly()
        guard extractor(for: job.fileExtension) != nil else {
            throw SearchError.unsupportedFileType(job.fileExtension)
        }
        try checkExtractionHelper(for: job.fileExtension)
        try checkOCRLanguages(for: job.fileExtension)
        var job = job
        job.replacesCanonicalTwins = replacingCanonicalTwins
        try state.withLock {
            // The store is closing: a job queued now would be dropped, so it is refused.
            guard !isClosing && !isStopped else { throw StoreError.closed }
            pending.removeAll { $0.uid == job.uid }
            pending.append(job)
            keepStoreWhileQueued(store)
            cancelledUIDs.remove(job.uid)
            // At least one worker, or nothing queued would ever be done.
            let wanted = max(1, configuration.workerCount)
            while workersStarted < wanted {
                // `pthread_create` checked: Foundation's `Thread.start()` fails silently past a
                // thread limit (`ulimit -u`, memory), and a worker counted but never running
                // left `waitUntilIndexed` waiting forever (environment audit 28).
                let worker = JoinableThread(stackSize: 8 << 20) { [weak self] in
                    Thread.current.name = "cipherdex-indexer"
                    self?.workerLoop()
                }
                guard let thread = worker else {
                    guard workersStarted == 0 else { break }
                    pending.removeAll { $0.uid == job.uid }
                    stateChanged()
                    throw StoreError.resourcesExhausted(
                        path: job.uid, reason: "no thread could be started to index it (a thread or memory limit)")
                }
                thread.detach()
                workersStarted += 1
            }
            stateChanged()
        }
    }

    /// Throws `extractionHelperMissing` when a PDF would go to an isolated helper that cannot be
    /// found, so the first `add` or `sync` says so instead of every document failing quietly.
    func checkExtractionHelper(for fileExtension: String) throws {
        let configuration = state.withLock { self.configuration }
        guard fileExtension == "pdf", configuration.extractors["pdf"] == nil,
            case .isolated = configuration.pdfExtraction, IsolatedPDFExtractor.locateHelper() == nil
        else { return }
        throw SearchError.extractionHelperMissing(reason: IsolatedPDFExtractor.missingHelperAdvice)
    }

    /// The extractor for a file extension, or nil.
    func extractor(for fileExtension: String) -> (any TextExtractor)? {
        let configuration = state.withLock { self.configuration }
        if let custom = configuration.extractors[fileExtension] { return custom }
        if fileExtension == "pdf" {
            switch configuration.pdfExtraction {
            case .inProcess: return PDFTextExtractor()
            case .isolated(let limits):
                return IsolatedPDFExtractor(pool: helperPool(limits: limits, idleHelpers: configuration.workerCount))
            }
        }
        if PlainTextExtractor.supportedExtensions.contains(fileExtension) { return PlainTextExtractor() }
        return nil
    }

    /// The library's helper pool for `limits`, replacing (and closing) one made for other limits
    /// or another worker count.
    private func helperPool(limits: IsolatedPDFExtractor.Limits, idleHelpers: Int) -> IsolatedExtractorPool {
        let (pool, replaced): (IsolatedExtractorPool, IsolatedExtractorPool?) = state.withLock {
            if let pool = pdfPool, pool.limits == limits, pool.policy.maximumIdleHelpers == idleHelpers {
                return (pool, nil)
            }
            let replaced = pdfPool
            let pool = IsolatedExtractorPool(limits: limits, policy: .init(maximumIdleHelpers: idleHelpers))
            if !isStopped { pdfPool = pool }
            return (pool, replaced)
        }
        replaced?.close()
        return pool
    }

    /// What a worker takes next: a document, or (when no document waits) a page to recognise.
    private enum Work {
        case document(IndexJob)
        case ocrPage(OCRPageJob)
    }

    /// The key of the thread-dictionary entry that marks the library's own worker threads.
    static let workerThreadKey = "cipherdex.search.worker"

    /// Whether the calling thread is one of this library's workers (running an extractor, a
    /// password provider or an index write); another store's library's worker is not.
    var isWorkerThread: Bool {
        (Thread.current.threadDictionary[Self.workerThreadKey] as? ObjectIdentifier) == ObjectIdentifier(self)
    }

    private func workerLoop() {
        Thread.current.threadDictionary[Self.workerThreadKey] = ObjectIdentifier(self)
        while true {
            let next: Work? = state.withLock {
                // An OCR page waits while `ocrPageLimit` pages are being recognised (each page's
                // end broadcasts).
                while !isStopped
                    && ((pending.isEmpty
                        && (ocrPending.isEmpty
                            || ocrActive.values.reduce(0, +) >= configuration.ocrPageLimit))
                        || isPaused)
                {
                    state.wait()
                }
                guard !isStopped else { return nil }
                if pending.isEmpty {
                    let page = ocrPending.removeFirst()
                    ocrActive[page.uid, default: 0] += 1
                    return .ocrPage(page)
                }
                let job = pending.removeFirst()
                active[job.uid] = 0
                activeRoots[job.uid] = job.sourceRoot
                return .document(job)
            }
            guard let next else { return }
            guard case .document(let job) = next else {
                if case .ocrPage(let page) = next {
                    process(page)
                    // The last page of an OCR run is the index's last write: free pages go back
                    // here, as `submit` does when documents end a run (before `waitUntilIdle`
                    // can return, since this page still counts as active).
                    let last = state.withLock {
                        pending.isEmpty && active.isEmpty && ocrPending.isEmpty && writeQueue.isEmpty && !isWriting
                            && ocrActive.values.reduce(0, +) == 1
                    }
                    if last, let store { IndexSpaceReclaim.giveBackFreePages(store: store) }
                    state.withLock {
                        ocrActive[page.uid, default: 1] -= 1
                        if ocrActive[page.uid] == 0 {
                            ocrActive.removeValue(forKey: page.uid)
                            if !ocrPending.contains(where: { $0.uid == page.uid }) {
                                ocrQueued.removeValue(forKey: page.uid)
                                ocrRuns.removeValue(forKey: page.uid)
                            }
                        }
                        stateChanged()
                    }
                }
                continue
            }
            publish(.started(uid: job.uid))
            let outcome = process(job)
            let dropped = state.withLock {
                cancelledUIDs.remove(job.uid) != nil || isStopped
            }
            guard let outcome, !dropped else {
                state.withLock {
                    active.removeValue(forKey: job.uid)
                    activeRoots.removeValue(forKey: job.uid)
                    stateChanged()
                }
                continue
            }
            submit(outcome)
        }
    }

    /// Loads, hashes, stores and extracts one document (no index writes). The document is held
    /// in memory once (read straight into one buffer, stored and sent to a helper from it); one
    /// over `maximumDocumentSize` fails without being read. A failure to store its copy is
    /// `.notStored`: a problem of the store (disk full), not of the document.
    private func process(_ job: IndexJob) -> IndexOutcome? {
        guard let store else { return nil }
        let limit = state.withLock { configuration.maximumDocumentSize }
        var staged: AttachmentStorage.Staged?
        func failed(_ reason: String, _ attachmentID: String? = nil, _ contentHash: [UInt8] = []) -> IndexOutcome {
            IndexOutcome(
                job: job, result: .failed(reason), attachmentID: attachmentID, contentHash: contentHash, staged: staged)
        }
        let bytes: [UInt8]
        let storeCopy: Bool
        var attachmentID: String?
        do {
            switch job.source {
            case .file(let path, let copy):
                bytes = try DocumentReader.read(path: path, limit: limit)
                storeCopy = copy
            case .data(let data):
                guard data.count <= limit else {
                    return failed(DocumentReader.tooLargeReason(size: Int64(data.count), limit: limit))
                }
                bytes = Array(data)
                storeCopy = true
            case .attachment(let id):
                let reader = try store.attachment(id)
                guard reader.length <= UInt64(limit) else {
                    return failed(DocumentReader.tooLargeReason(size: Int64(reader.length), limit: limit))
                }
                var content: [UInt8] = []
                content.reserveCapacity(Int(reader.length))
                try reader.forEachChunk { content.append(contentsOf: $0) }
                bytes = content
                storeCopy = false
                attachmentID = id
            }
        } catch let refusal as DocumentReader.Refusal {
            return failed(refusal.reason)
        } catch {
            return failed((error as? LocalizedError)?.errorDescription ?? String(describing: error))
        }
        let contentHash: [UInt8]
        let ocr = ocrSettings(for: job.fileExtension)
        let ocrLanguages = ocr?.languageString
        do {
            if storeCopy {
                staged = try store.attachmentStorage.stage { sink in try bytes.withUnsafeBytes { try sink($0) } }
            }
            let hash = Sodium.StreamingHash(key: store.attachmentStorage.deduplicationKey)
            bytes.withUnsafeBytes { hash.update($0) }
            contentHash = hash.finish()
            if !job.force,
                try store.read({
                    try SearchIndexWriter.isCurrent(
                        uid: job.uid, contentHash: contentHash, ocrLanguages: ocrLanguages, db: $0)
                })
            {
                return IndexOutcome(
                    job: job, result: .unchanged, attachmentID: attachmentID, contentHash: contentHash, staged: staged)
            }
        } catch {
            if let staged { unlink(staged.path) }
            return IndexOutcome(
                job: job, result: .notStored(StoreWriteFailure.reason(for: error)), attachmentID: attachmentID,
                contentHash: [])
        }
        guard let extractor = extractor(for: job.fileExtension) else {
            return failed(
                SearchError.unsupportedFileType(job.fileExtension).errorDescription ?? "no text extractor",
                attachmentID, contentHash)
        }
        let password = state.withLock { configuration.passwordProvider }?(job.uid)
        func extract(_ password: String?) throws -> ExtractedDocument {
            try ocr.map { try extractFlaggingOCR(extractor, data: bytes, password: password, settings: $0) }
                ?? extractor.extract(data: bytes, fileExtension: job.fileExtension, password: password)
        }
        do {
            // The password goes to the extractor (a helper parsing untrusted PDFs) only once the
            // document turned out to be locked without it: an unprotected PDF, which may be
            // crafted to take its helper over, is never sent it (leak audit 27).
            var needsPassword = false
            let document: ExtractedDocument
            do {
                document = try extract(nil)
            } catch ExtractionError.locked where password != nil {
                document = try extract(password)
                needsPassword = true
            }
            return IndexOutcome(
                job: job, result: .indexed(document), attachmentID: attachmentID, contentHash: contentHash,
                staged: staged, ocrLanguages: ocrLanguages, ocrSettings: ocr, needsPassword: needsPassword)
        } catch ExtractionError.locked {
            return IndexOutcome(
                job: job, result: .locked, attachmentID: attachmentID, contentHash: contentHash, staged: staged)
        } catch let error as ExtractionError {
            return failed("\(error.name): \(error.errorDescription ?? "")", attachmentID, contentHash)
        } catch {
            return failed(
                (error as? LocalizedError)?.errorDescription ?? String(describing: error), attachmentID, contentHash)
        }
    }

    /// Hands an outcome to the single writer: whoever finds no write running drains the queue,
    /// writing everything queued so far in one transaction.
    private func submit(_ outcome: IndexOutcome) {
        let drain: Bool = state.withLock {
            writeQueue.append(outcome)
            guard !isWriting else { return false }
            isWriting = true
            return true
        }
        guard drain else { return }
        var reclaimed = false
        while true {
            let batch: [IndexOutcome] = state.withLock {
                defer { writeQueue.removeAll() }
                return writeQueue
            }
            if !batch.isEmpty {
                write(batch)
                reclaimed = false
                continue
            }
            // Nothing left to write. Once no document is waiting either, the free pages the
            // writes left (FTS4 merges free whole segments) go back to the file system, before
            // `waitUntilIdle` returns.
            let quiet = state.withLock { pending.isEmpty && active.isEmpty && ocrPending.isEmpty && ocrActive.isEmpty }
            if quiet && !reclaimed, let store {
                IndexSpaceReclaim.giveBackFreePages(store: store)
                reclaimed = true
            }
            let finished: Bool = state.withLock {
                guard writeQueue.isEmpty else { return false }
                isWriting = false
                stateChanged()
                return true
            }
            if finished { return }
        }
    }

    /// Writes a batch in one transaction. When the store cannot take it (disk full, I/O error)
    /// nothing of it is written: its documents are recorded in `writeFailures` (their status
    /// says why, `waitUntilIndexed()` throws) and their staged copies are dropped. A document's
    /// copy is recorded in the transaction of its index entry, never before.
    private func write(_ batch: [IndexOutcome]) {
        var events: [IndexingEvent] = []
        var failures: [String: String] = [:]
        var writable: [IndexOutcome] = []
        var written: [IndexOutcome] = []
        // The pages of canonical twins the writes replace (`SearchIndexWriter.canonicalTwins`).
        var twinPages = 0
        for outcome in batch {
            if case .notStored(let reason) = outcome.result {
                failures[outcome.job.uid] = reason
            } else {
                writable.append(outcome)
            }
        }
        do {
            guard let store else { throw StoreError.closed }
            if !writable.isEmpty {
                try store.transaction { tx in
                    for outcome in writable {
                        let outcome = try Self.recordCopy(of: outcome, tx: tx)
                        written.append(outcome)
                        twinPages += try SearchIndexWriter.pagesOfCanonicalTwins(
                            replacedBy: outcome.job, db: tx.connection)
                        events += try SearchIndexWriter.write(outcome, tx: tx) { uid, done, total in
                            state.withLock {
                                if active[uid] != nil { active[uid] = Double(done) / Double(max(total, 1)) }
                            }
                        }
                    }
                }
            }
        } catch {
            // Copies recorded in the failed transaction were unlinked by its rollback.
            for outcome in writable { if let staged = outcome.staged { unlink(staged.path) } }
            let reason = StoreWriteFailure.reason(for: error)
            events = []
            written = []
            twinPages = 0
            for outcome in writable { failures[outcome.job.uid] = reason }
        }
        // A replaced twin's queued OCR pages go, as `remove(uid:)` drops them (matched by bytes:
        // the queue takes the twins for one UID, and the new document's pages are queued next).
        let replacedTwins = events.compactMap { event -> String? in
            if case .removed(let uid) = event { return uid }
            return nil
        }
        if !replacedTwins.isEmpty {
            state.withLock {
                ocrPending.removeAll { page in replacedTwins.contains { $0.utf8.elementsEqual(page.uid.utf8) } }
            }
        }
        // Their scanned pages, after the documents with text layers (workers take them last).
        for outcome in written { queueOCRPages(of: outcome) }
        for (uid, reason) in failures.sorted(by: { $0.key < $1.key }) {
            events.append(.failed(uid: uid, reason: "could not write the index: \(reason)"))
        }
        state.withLock {
            for outcome in batch {
                active.removeValue(forKey: outcome.job.uid)
                activeRoots.removeValue(forKey: outcome.job.uid)
                writeFailures[outcome.job.uid] = failures[outcome.job.uid]
            }
            stateChanged()
        }
        for event in events { publish(event) }
        // The space replaced twins held goes back, as after `remove(uid:)`.
        if twinPages > 0, let store { IndexSpaceReclaim.run(store: store, removedPages: twinPages) }
    }

    /// Records the outcome's staged copy (if any) in `tx`, the transaction that writes its index
    /// entry: the copy becomes visible with the entry, and a rollback drops the staged file.
    /// Identical content already stored is shared (the staged file is then dropped).
    private static func recordCopy(of outcome: IndexOutcome, tx: StoreTransaction) throws -> IndexOutcome {
        guard let staged = outcome.staged else { return outcome }
        let storage = tx.store.attachmentStorage
        let id = try storage.commit(
            staged, db: tx.connection,
            contentType: AttachmentStorage.contentType(forExtension: outcome.job.fileExtension),
            metadata: ["uid": outcome.job.uid])
        if id == staged.id {
            tx.onRollback { unlink(staged.path) }
            tx.afterCommit { try? storage.publish(id) }
        }
        var recorded = outcome
        recorded.attachmentID = id
        recorded.sharesStoredCopy = id != staged.id
        recorded.staged = nil
        return recorded
    }
}
