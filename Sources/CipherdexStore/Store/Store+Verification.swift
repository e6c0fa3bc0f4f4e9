#if canImport(Glibc)
    import Glibc
#endif

extension Store {
    /// Reads every page of the database (each is decrypted and its HMAC checked by SQLCipher),
    /// runs SQLite's integrity check, and authenticates every chunk of every attachment (in an
    /// unencrypted store: hashes every attachment and compares the recorded content hash), and
    /// checks that every attachment a feature holds (a search document's stored copy) is there.
    /// Problems are collected into the report rather than thrown; the environment's errors are
    /// thrown, not reported as damage (an attachment file this process may not open is
    /// `StoreError.permissionDenied`, a failing disk `ioError`, too many open files or too little
    /// memory `resourcesExhausted`). Inside a transaction (on its thread) this throws
    /// `StoreError.insideTransaction`: the transaction's attachment files would look unrecorded.
    public func verify() throws -> VerificationReport {
        try verify(cancellation: nil)
    }

    /// The async form of `verify()`: runs on Cipherdex's own queue and, when the task is
    /// cancelled, stops at its next check (between the database's steps, every 1,024 rows,
    /// between attachments and their chunks) with `CancellationError`. It only reads.
    public func verifyAsync() async throws -> VerificationReport {
        try await BlockingWork.run { cancellation in try self.verify(cancellation: cancellation) }
    }

    func verify(cancellation: WorkCancellation?) throws -> VerificationReport {
        try refuseInsideTransaction("verify()")
        var problems: [String] = []
        var pages = 0
        try verifyDatabase(pages: &pages, problems: &problems, cancellation: cancellation)
        let attachments = try verifyAttachments(cancellation: cancellation)
        problems += attachments.problems
        problems += try heldAttachmentProblems(cancellation: cancellation)
        return VerificationReport(pagesChecked: pages, attachmentsChecked: attachments.checked, problems: problems)
    }

    /// The environment's error behind a message of SQLite's integrity check that a page could
    /// not be read ("Page 17: unable to get the page. error code=266"): an input/output error
    /// (`SQLITE_IOERR` and its extended codes) is `ioError` naming the `errno` of the failed read
    /// when known, too little memory `resourcesExhausted`; nil for any other message (damage).
    func environmentalFailure(inIntegrityMessage message: String) -> StoreError? {
        guard let range = message.range(of: "error code="),
            let code = Int32(message[range.upperBound...].prefix { $0.isNumber })
        else { return nil }
        if code == Connection.noMemoryCode || code == Connection.ioErrorNoMemoryCode {
            return StoreError.resourcesExhausted(
                errno: ENOMEM, path: layout.database, failure: "the integrity check could not read a page")
        }
        guard code & 0xff == Connection.ioErrorCode else { return nil }
        let failedRead = Connection.readFailure
        let cause = failedRead != 0 ? "\(String(cString: strerror(failedRead))), errno \(failedRead)" : "disk I/O error"
        return .ioError(
            path: layout.database,
            reason: "the integrity check could not read a page (\(cause); SQLite: \(message)); "
                + "the check could not be made")
    }

    /// Checks every page and row of the database, collecting damage into `problems`. A failing
    /// disk (`EIO`), a full one or missing permissions is thrown instead: that is not damage,
    /// and the check could not be made.
    private func verifyDatabase(pages: inout Int, problems: inout [String], cancellation: WorkCancellation?) throws {
        let encrypted = dataKey != nil
        // Each step in a read of its own, so that damage names the step (and the table) that met
        // it and the other steps still run: after a page fails to authenticate, SQLCipher 3 fails
        // every later statement of that read transaction.
        func step(_ name: String, _ body: (Connection) throws -> Void) throws {
            try cancellation?.check()
            do {
                try read { db in try body(db) }
            } catch let error as DatabaseError {
                if let environment = StoreError.classifyingEnvironment(error) { throw environment }
                var description = error.errorDescription ?? "unreadable page"
                if encrypted && error.code == Connection.errorCode {
                    // What SQLCipher 3 reports for a page whose HMAC or decryption fails.
                    description = "a page does not decrypt or authenticate (\(description))"
                }
                problems.append("\(name): \(description)")
            }
        }
        try step("page count") { db in pages = Int(try db.scalar("PRAGMA page_count")?.integerValue ?? 0) }
        var failingPages: [UInt32] = []
        try step("page check") { db in
            if encrypted, let version = try db.scalar("PRAGMA cipher_version")?.textValue, version.hasPrefix("3.") {
                // SQLCipher 3.x has no such pragma: every page is authenticated here.
                failingPages = try checkEveryPage(pageCount: pages, cancellation: cancellation) ?? []
                return
            }
            // SQLCipher 4.x: checks the HMAC of every page, free pages included.
            for row in try db.rows("PRAGMA cipher_integrity_check") {
                problems.append("page check: \(row.first?.textValue ?? "?")")
            }
        }
        if !failingPages.isEmpty {
            // Looked at again holding the writer: a checkpoint may have been writing a page
            // while it was read (a read-only store's lock keeps every other process out).
            let again = try Store.mappingDatabaseErrors {
                try (isReadOnly ? pool.read : pool.write) { _ in
                    try checkEveryPage(pageCount: pages, cancellation: cancellation) ?? []
                }
            }
            let listed = again.prefix(20).map(String.init).joined(separator: ", ") + (again.count > 20 ? ", …" : "")
            if !again.isEmpty {
                problems.append(
                    "page check: \(again.count) of \(pages) page(s) of \(layout.database) do not authenticate "
                        + "(their bytes were changed or damaged): page \(listed)")
            }
        }
        try step("integrity check could not finish") { db in
            Connection.resetReadFailure()
            let messages = try db.rows("PRAGMA integrity_check").compactMap { $0.first?.textValue }
            if let failure = messages.lazy.compactMap({ self.environmentalFailure(inIntegrityMessage: $0) }).first {
                throw failure
            }
            if messages != ["ok"] {
                problems += messages.map { "integrity check: \($0)" }
            }
        }
        // Read every row of every table: each page on the way is decrypted and authenticated.
        // Not virtual tables (a feature's FTS index): their module may not be registered in
        // this program, and their rows are in ordinary shadow tables, which are read.
        var tables: [String] = []
        try step("schema") { db in
            tables = try db.rows(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'"
            ).compactMap { $0.first?.textValue }
        }
        for table in tables {
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            try step("table \(table)") { db in
                var rows = 0
                try db.forEachRow("SELECT * FROM \(quoted)") { _ in
                    rows += 1
                    if rows % 1024 == 0 { try cancellation?.check() }
                }
            }
        }
    }

    /// The pages of the database file, up to `pageCount`, that do not authenticate under the
    /// data key (SQLCipher 3.x, `SQLCipherPageCheck`); nil when the store's settings are not
    /// the ones that check knows (then SQLCipher's own reads are the check). Neither the
    /// lock-byte page at 1 GiB, which SQLite never writes, nor a page the log holds a committed
    /// copy of (the file's may be one a checkpoint has not rewritten yet) is looked at.
    private func checkEveryPage(pageCount: Int, cancellation: WorkCancellation?) throws -> [UInt32]? {
        guard let dataKey, let cipher = metadata.withLock({ $0.cipher }), cipher.useHMAC,
            cipher.hmacAlgorithm == "HMAC_SHA1", cipher.cipher == "aes-256-cbc"
        else { return nil }
        var skipping: Set<UInt32> = [UInt32(1 << 30 / cipher.pageSize + 1)]
        do {
            if FileSystem.exists(layout.databaseWAL),
                let log = try WriteAheadLogScan.committedPages(ofLogAt: layout.databaseWAL)
            {
                skipping.formUnion(log.pages)
            }
            return try SQLCipherPageCheck.failingPages(
                ofDatabaseAt: layout.database, dataKey: dataKey, pageSize: cipher.pageSize, pageCount: pageCount,
                skipping: skipping, cancellation: cancellation)
        } catch let error as SystemError {
            throw StoreError.classifying(error)
        }
    }

    /// Authenticates every chunk of every attachment and checks that rows and files match.
    ///
    /// The rows come from a reader snapshot while other threads may go on writing, so a
    /// mismatch may only mean that a write committed (or a removal) after the snapshot: every
    /// problem found is looked at again while holding the writer, when every committed
    /// attachment's file is in place and no write is in progress, and kept only if it is still
    /// there. `afterReadingRows` runs right after the snapshot (tests write there).
    func verifyAttachments(cancellation: WorkCancellation? = nil, afterReadingRows: () throws -> Void = {}) throws -> (
        checked: Int, problems: [String]
    ) {
        let recorded = try Store.mappingDatabaseErrors {
            try read { db in try db.rows("SELECT id, length, content_hash FROM attachments ORDER BY id") }
        }
        try afterReadingRows()
        var problems: [String: String] = [:]
        var checked = 0
        var ids = Set<String>()
        for row in recorded {
            guard let id = row[0].textValue else { continue }
            ids.insert(id)
            try cancellation?.check()
            if let problem = try attachmentProblem(
                id: id, recordedLength: row[1].integerValue ?? -1, recordedHash: row[2].blobValue,
                cancellation: cancellation)
            {
                problems[id] = problem
            } else {
                checked += 1
            }
        }
        var unrecorded = try attachmentFileNames().filter { !ids.contains($0) }
        if !unrecorded.isEmpty {
            // A removal whose unlink a kill interrupted is finished by a writable open's
            // `reconcile` (a read-only open leaves it): its file is on its way out, not unrecorded.
            let removing = Set(
                try Store.mappingDatabaseErrors {
                    try read { db in
                        try db.rows("SELECT id FROM attachment_removals").compactMap { $0.first?.textValue }
                    }
                })
            unrecorded.removeAll { removing.contains($0) }
        }
        if !problems.isEmpty || !unrecorded.isEmpty {
            // Looked at again holding the writer (no write in progress); a read-only store has
            // no writer, and its lock keeps every other process from writing.
            func withWriterHeld<T>(_ body: (Connection) throws -> T) throws -> T {
                isReadOnly ? try pool.read(body) : try pool.write(body)
            }
            try Store.mappingDatabaseErrors {
                try withWriterHeld { db in
                    for id in problems.keys.sorted() {
                        guard
                            let row = try db.rows(
                                "SELECT length, content_hash FROM attachments WHERE id = ?", [.text(id)]
                            ).first
                        else {
                            problems[id] = nil  // removed since the snapshot
                            continue
                        }
                        problems[id] = try attachmentProblem(
                            id: id, recordedLength: row[0].integerValue ?? -1, recordedHash: row[1].blobValue)
                        if problems[id] == nil { checked += 1 }
                    }
                    unrecorded = try unrecorded.filter { name in
                        guard FileSystem.exists(layout.attachments + "/" + name) else { return false }
                        return try db.rows("SELECT 1 FROM attachments WHERE id = ?", [.text(name)]).isEmpty
                    }
                }
            }
        }
        let messages = problems.sorted { $0.key < $1.key }.map(\.value)
        return (checked, messages + unrecorded.sorted().map { "attachment file \($0) is not recorded in the database" })
    }

    /// The names in `attachments/` (none when it is not there). A folder that cannot be listed
    /// (too many open files, no permission) is the environment's error, never taken for an empty
    /// one: `verify` would say that no file is unrecorded without having looked.
    private func attachmentFileNames() throws -> [String] {
        do {
            return try FileSystem.entries(of: layout.attachments)
        } catch let error as SystemError where error.errno == ENOENT {
            return []
        } catch let error as SystemError {
            throw StoreError.classifying(error)
        }
    }

    /// What is wrong with recorded attachment `id` (nil: every chunk authenticates and the length
    /// matches; in an unencrypted store, the content matches `recordedHash`, which has no tags).
    /// A failing disk (`EIO`), a file this process may not read (`EACCES`, `EPERM`) or one it
    /// has no file or memory left to open (`EMFILE`, `ENFILE`, `ENOMEM`) is thrown, not
    /// reported: that is not damage.
    private func attachmentProblem(
        id: String, recordedLength: Int64, recordedHash: [UInt8]?, cancellation: WorkCancellation? = nil
    ) throws -> String? {
        let storage = attachmentStorage
        do {
            let reader = try AttachmentReader(
                id: id, path: storage.readablePath(of: id), masterKey: storage.masterKey,
                recordedLength: UInt64(max(0, recordedLength)),
                recordedContentHash: storage.masterKey == nil ? (recordedHash ?? []) : nil)
            if reader.length != UInt64(truncatingIfNeeded: recordedLength) || recordedLength < 0 {
                return "attachment \(id): length \(reader.length) does not match the recorded \(recordedLength)"
            }
            try reader.forEachChunk { _ in try cancellation?.check() }
            return nil
        } catch let error as CancellationError {
            throw error
        } catch let error as StoreError {
            // The reader's own typing of a file it may not open (`permissionDenied`) or of a
            // failing disk (`ioError`): the environment, not damage.
            throw error
        } catch let error as AttachmentError {
            if case .io(_, let operation, let code) = error {
                // The environment's (a failing disk, no permission, too many open files, too
                // little memory), not the file's: only what stays untyped may be damage.
                let typed = StoreError.classifying(
                    SystemError(operation: operation, path: storage.readablePath(of: id), errno: code))
                guard case .system = typed else { throw typed }
            }
            return "attachment \(id): \(error.errorDescription ?? "unreadable")"
        } catch {
            return "attachment \(id): \(error)"
        }
    }
}
