import Foundation

extension SearchLibrary {
    /// Queues a job (replacing a queued job of the same UID) and makes sure workers run.
    func enqueue(_ job: IndexJob) throws {
        guard store?.isOpen == true else { throw StoreError.closed }
        guard extractor(for: job.fileExtension) != nil else {
            throw SearchError.unsupportedFileType(job.fileExtension)
        }
        state.withLock {
            pending.removeAll { $0.uid == job.uid }
            pending.append(job)
            cancelledUIDs.remove(job.uid)
            let wanted = configuration.workerCount
            while workersStarted < wanted {
                workersStarted += 1
                let thread = Thread { [weak self] in self?.workerLoop() }
                thread.name = "cipherdex-indexer"
                thread.start()
            }
            state.broadcast()
        }
    }

    /// The extractor for a file extension, or nil.
    func extractor(for fileExtension: String) -> (any TextExtractor)? {
        let configuration = state.withLock { self.configuration }
        if let custom = configuration.extractors[fileExtension] { return custom }
        if fileExtension == "pdf" {
            switch configuration.pdfExtraction {
            case .inProcess: return PDFTextExtractor()
            case .isolated(let limits): return IsolatedPDFExtractor(pool: helperPool(limits: limits, idleHelpers: configuration.workerCount))
            }
        }
        if PlainTextExtractor.supportedExtensions.contains(fileExtension) { return PlainTextExtractor() }
        return nil
    }

    /// The library's helper pool for `limits`, replacing (and closing) one made for other limits
    /// or another worker count.
    private func helperPool(limits: IsolatedPDFExtractor.Limits, idleHelpers: Int) -> IsolatedExtractorPool {
        let (pool, replaced): (IsolatedExtractorPool, IsolatedExtractorPool?) = state.withLock {
            if let pool = pdfPool, pool.limits == limits, pool.policy.maximumIdleHelpers == idleHelpers { return (pool, nil) }
            let replaced = pdfPool
            let pool = IsolatedExtractorPool(limits: limits, policy: .init(maximumIdleHelpers: idleHelpers))
            if !isStopped { pdfPool = pool }
            return (pool, replaced)
        }
        replaced?.close()
        return pool
    }

    private func workerLoop() {
        while true {
            let next: IndexJob? = state.withLock {
                while !isStopped && (pending.isEmpty || isPaused) { state.wait() }
                guard !isStopped else { return nil }
                let job = pending.removeFirst()
                active[job.uid] = 0
                return job
            }
            guard let job = next else { return }
            publish(.started(uid: job.uid))
            let outcome = process(job)
            let dropped = state.withLock {
                cancelledUIDs.remove(job.uid) != nil || isStopped
            }
            guard let outcome, !dropped else {
                state.withLock {
                    active.removeValue(forKey: job.uid)
                    state.broadcast()
                }
                continue
            }
            submit(outcome)
        }
    }

    /// Loads, hashes, stores and extracts one document (no database writes).
    private func process(_ job: IndexJob) -> IndexOutcome? {
        guard let store else { return nil }
        do {
            let bytes: [UInt8]
            var attachmentID: String?
            switch job.source {
            case .file(let path, let storeCopy):
                guard let data = FileManager.default.contents(atPath: path) else {
                    return IndexOutcome(job: job, result: .failed("cannot read \(path)"), attachmentID: nil, contentHash: [])
                }
                bytes = Array(data)
                if storeCopy { attachmentID = try store.addAttachment(data, contentType: AttachmentStorage.contentType(forExtension: job.fileExtension), metadata: ["uid": job.uid]).id }
            case .data(let data):
                bytes = Array(data)
                attachmentID = try store.addAttachment(data, contentType: AttachmentStorage.contentType(forExtension: job.fileExtension), metadata: ["uid": job.uid]).id
            case .attachment(let id):
                bytes = Array(try store.attachmentData(id))
                attachmentID = id
            }
            let hash = Sodium.StreamingHash(key: store.attachmentStorage.deduplicationKey)
            bytes.withUnsafeBytes { hash.update($0) }
            let contentHash = hash.finish()
            if !job.force, try store.read({ try SearchIndexWriter.isCurrent(uid: job.uid, contentHash: contentHash, db: $0) }) {
                return IndexOutcome(job: job, result: .unchanged, attachmentID: attachmentID, contentHash: contentHash)
            }
            guard let extractor = extractor(for: job.fileExtension) else {
                return IndexOutcome(job: job, result: .failed("no text extractor for .\(job.fileExtension)"), attachmentID: attachmentID, contentHash: contentHash)
            }
            let password = state.withLock { configuration.passwordProvider }?(job.uid)
            do {
                let document = try extractor.extract(data: bytes, fileExtension: job.fileExtension, password: password)
                return IndexOutcome(job: job, result: .indexed(document), attachmentID: attachmentID, contentHash: contentHash)
            } catch ExtractionError.locked {
                return IndexOutcome(job: job, result: .locked, attachmentID: attachmentID, contentHash: contentHash)
            } catch let error as ExtractionError {
                return IndexOutcome(job: job, result: .failed("\(error.name): \(error.errorDescription ?? "")"), attachmentID: attachmentID, contentHash: contentHash)
            }
        } catch {
            let reason = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
            return IndexOutcome(job: job, result: .failed(reason), attachmentID: nil, contentHash: [])
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
        while true {
            let batch: [IndexOutcome] = state.withLock {
                defer { writeQueue.removeAll() }
                if writeQueue.isEmpty { isWriting = false; state.broadcast() }
                return writeQueue
            }
            if batch.isEmpty { return }
            write(batch)
        }
    }

    private func write(_ batch: [IndexOutcome]) {
        var events: [IndexingEvent] = []
        do {
            guard let store else { throw StoreError.closed }
            try store.transaction { tx in
                for outcome in batch {
                    events += try SearchIndexWriter.write(outcome, tx: tx) { uid, done, total in
                        state.withLock { if active[uid] != nil { active[uid] = Double(done) / Double(max(total, 1)) } }
                    }
                }
            }
        } catch {
            let reason = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
            events = batch.map { .failed(uid: $0.job.uid, reason: "could not write the index: \(reason)") }
        }
        state.withLock {
            for outcome in batch { active.removeValue(forKey: outcome.job.uid) }
            state.broadcast()
        }
        for event in events { publish(event) }
    }
}

