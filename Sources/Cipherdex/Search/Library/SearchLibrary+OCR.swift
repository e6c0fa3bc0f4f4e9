import Foundation

/// OCR of scanned pages: documents are indexed with their text layers first; the pages that
/// qualify for OCR and have no kept result are queued as page jobs, which workers take only when
/// no document is waiting (text documents finish first), one page per helper request under the
/// per-page limits, and written into the index page by page.
extension SearchLibrary {
    /// Where OCR stands for `uid`: the candidate pages, those recognised so far and those that
    /// failed; nil when its last indexing did not run OCR (off, or not a PDF).
    public func ocrStatus(of uid: String) throws -> OCRStatus? {
        guard let store else { throw StoreError.closed }
        return try store.read { try SearchIndexWriter.ocrStatus(uid: uid, db: $0) }
    }

    /// The OCR settings for a document with this extension, or nil when OCR does not apply to it
    /// (off, not a PDF, or a custom PDF extractor).
    func ocrSettings(for fileExtension: String) -> OCRSettings? {
        let configuration = state.withLock { self.configuration }
        guard fileExtension == "pdf", configuration.extractors["pdf"] == nil,
            let languages = configuration.ocr.languages
        else { return nil }
        var settings = configuration.ocrSettings
        // A language given twice (`eng+eng`) is the same recognition as once: kept once, so
        // results kept in `eng` are reused rather than every page recognised again.
        settings.languages = languages.reduce(into: []) { kept, language in
            if !kept.contains(language) { kept.append(language) }
        }
        return settings
    }

    /// Throws when OCR would run in a language that is malformed or not installed (or in none),
    /// so the first `add` or `sync` says so at once, naming the package to install.
    func checkOCRLanguages(for fileExtension: String) throws {
        guard let settings = ocrSettings(for: fileExtension) else { return }
        guard !settings.languages.isEmpty else { throw SearchError.invalidOCRLanguage("") }
        for language in settings.languages {
            guard OCRLanguageData.isWellFormed(language) else { throw SearchError.invalidOCRLanguage(language) }
            guard OCRLanguageData.isInstalled(language) else {
                throw SearchError.ocrLanguageMissing(
                    language: language, package: OCRLanguageData.package(for: language))
            }
        }
    }

    /// Extracts a PDF with its OCR candidates flagged, where `extractor` is the built-in one.
    func extractFlaggingOCR(
        _ extractor: any TextExtractor, data: [UInt8], password: String?, settings: OCRSettings
    ) throws -> ExtractedDocument {
        if let isolated = extractor as? IsolatedPDFExtractor {
            return try isolated.extract(
                data: data, password: password, ocrCandidatesBelow: settings.minimumTextCharacters)
        }
        var local = PDFTextExtractor()
        local.ocrCandidatesBelow = settings.minimumTextCharacters
        return try local.extract(data: data, password: password)
    }

    /// Queues the pages of a written outcome that need OCR and have no kept result (called after
    /// its transaction committed).
    func queueOCRPages(of outcome: IndexOutcome) {
        guard let store, let languages = outcome.ocrLanguages, let settings = outcome.ocrSettings,
            case .indexed(let document) = outcome.result
        else { return }
        let candidates = document.pages.filter(\.needsOCR).map(\.index)
        guard !candidates.isEmpty else { return }
        let source: OCRPageJob.Source
        if let id = outcome.attachmentID {
            source = .attachment(id: id)
        } else if case .file(let path, _) = outcome.job.source {
            source = .file(path: path)
        } else {
            return
        }
        guard
            let kept = try? store.read({
                try SearchIndexWriter.keptOCR(contentHash: outcome.contentHash, languages: languages, db: $0)
            })
        else { return }
        let run = OCRDocumentRun()
        let jobs = candidates.filter { kept[$0] == nil }.map {
            OCRPageJob(
                uid: outcome.job.uid, contentHash: outcome.contentHash, source: source, pageIndex: $0,
                settings: settings, run: run.id, needsPassword: outcome.needsPassword)
        }
        guard !jobs.isEmpty else { return }
        state.withLock {
            guard !isStopped, !cancelledUIDs.contains(outcome.job.uid) else { return }
            dropOCRPages(of: outcome.job.uid)
            ocrPending.append(contentsOf: jobs)
            ocrQueued[outcome.job.uid] = jobs.count
            ocrRuns[outcome.job.uid] = run
            stateChanged()
        }
    }

    /// Drops the queued OCR pages of `uid` (every UID's when nil); call with `state` held.
    func dropOCRPages(of uid: String?) {
        if let uid {
            ocrPending.removeAll { $0.uid == uid }
            if ocrActive[uid] == nil {
                ocrQueued.removeValue(forKey: uid)
                ocrRuns.removeValue(forKey: uid)
            }
        } else {
            ocrPending.removeAll()
            ocrQueued = ocrQueued.filter { ocrActive[$0.key] != nil }
            ocrRuns = ocrRuns.filter { ocrActive[$0.key] != nil }
        }
    }

    /// The share of `uid`'s queued OCR pages done, or nil when none is queued or running; call
    /// with `state` held.
    func ocrFraction(_ uid: String) -> Double? {
        let waiting = ocrPending.reduce(0) { $0 + ($1.uid == uid ? 1 : 0) } + (ocrActive[uid] ?? 0)
        guard waiting > 0 else { return nil }
        let total = max(ocrQueued[uid] ?? waiting, waiting)
        return Double(total - waiting) / Double(total)
    }

    /// Recognises one page and writes it: the kept result always (text or failure), the index
    /// only while the document is still indexed with this content and these languages.
    func process(_ job: OCRPageJob) {
        guard let store else { return }
        if let exhaustion = state.withLock({ currentRun(of: job)?.exhaustion(of: job.settings) }) {
            write(job, body: nil, failure: exhaustion, store: store)
            return
        }
        let provider = state.withLock { configuration.passwordProvider }
        guard let bytes = content(of: job, store: store) else { return }
        var body: String?
        var failure: String?
        let password = provider?(job.uid)
        // Counted from here: a slow password provider is not the document's recognition time.
        let started = ContinuousClock.now
        var thrown: (any Error)?
        do {
            let page = try ocrExtractor(settings: job.settings).recognizePage(
                job.pageIndex, of: bytes, password: job.needsPassword ? password : nil, settings: job.settings)
            body = page.text
        } catch let error as ExtractionError {
            thrown = error
            failure = "\(error.name): \(error.errorDescription ?? "")"
        } catch {
            thrown = error
            failure = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
        }
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        state.withLock {
            if currentRun(of: job) != nil { ocrRuns[job.uid]?.record(seconds: seconds, failure: thrown) }
        }
        write(job, body: body, failure: failure, store: store)
    }

    /// The bytes of `job`'s document, read once for all its pages of this run; nil when they are
    /// gone or changed (its next indexing queues what it needs).
    private func content(of job: OCRPageJob, store: Store) -> [UInt8]? {
        let (limit, kept) = state.withLock { (configuration.maximumDocumentSize, currentRun(of: job)?.content) }
        if let kept, kept.hash == job.contentHash { return kept.bytes }
        let bytes: [UInt8]
        do {
            switch job.source {
            case .attachment(let id):
                let reader = try store.attachment(id)
                var content: [UInt8] = []
                content.reserveCapacity(Int(min(reader.length, UInt64(limit))))
                try reader.forEachChunk { content.append(contentsOf: $0) }
                bytes = content
            case .file(let path):
                bytes = try DocumentReader.read(path: path, limit: limit)
            }
        } catch {
            return nil
        }
        let hash = Sodium.StreamingHash(key: store.attachmentStorage.deduplicationKey)
        bytes.withUnsafeBytes { hash.update($0) }
        guard hash.finish() == job.contentHash else { return nil }
        state.withLock {
            if currentRun(of: job) != nil { ocrRuns[job.uid]?.content = (job.contentHash, bytes) }
        }
        return bytes
    }

    /// The run `job` belongs to, when it is its document's current one; call with `state` held.
    private func currentRun(of job: OCRPageJob) -> OCRDocumentRun? {
        guard let run = ocrRuns[job.uid], run.id == job.run else { return nil }
        return run
    }

    /// Writes one page's result (unless the library is stopping).
    private func write(_ job: OCRPageJob, body: String?, failure: String?, store: Store) {
        if state.withLock({ isStopped }) { return }
        // A store that cannot take it (disk full) leaves the page to the document's next indexing.
        _ = try? store.transaction { tx in
            try SearchIndexWriter.writeOCRPage(
                uid: job.uid, contentHash: job.contentHash, languages: job.settings.languageString,
                pageIndex: job.pageIndex, body: body, failure: failure, db: tx.connection)
        }
    }

    /// An extractor on the library's OCR pool, for `settings`' per-page limits (a pool made for
    /// other limits is replaced and closed).
    private func ocrExtractor(settings: OCRSettings) -> IsolatedPDFExtractor {
        let limits = settings.pageLimits()
        let (pool, replaced): (IsolatedExtractorPool, IsolatedExtractorPool?) = state.withLock {
            if let pool = ocrPool, pool.limits == limits { return (pool, nil) }
            let replaced = ocrPool
            let pool = IsolatedExtractorPool(
                limits: limits, policy: .init(maximumIdleHelpers: configuration.workerCount))
            if !isStopped { ocrPool = pool }
            return (pool, replaced)
        }
        replaced?.close()
        return IsolatedPDFExtractor(pool: pool)
    }
}
