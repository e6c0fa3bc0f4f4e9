extension Store {
    /// Reads every page of the database (each is decrypted and its HMAC checked by SQLCipher),
    /// runs SQLite's integrity check, and authenticates every chunk of every attachment.
    /// Problems are collected into the report rather than thrown. Inside a transaction (on its
    /// thread) this throws `StoreError.insideTransaction`: the transaction's attachment files
    /// would look unrecorded.
    public func verify() throws -> VerificationReport {
        try refuseInsideTransaction("verify()")
        var problems: [String] = []
        var pages = 0
        try Store.mappingDatabaseErrors {
            try read { db in try verifyDatabase(db, pages: &pages, problems: &problems) }
        }
        let attachments = try verifyAttachments()
        problems += attachments.problems
        return VerificationReport(pagesChecked: pages, attachmentsChecked: attachments.checked, problems: problems)
    }

    /// Checks every page and row of the database, collecting damage into `problems`. A failing
    /// disk (`EIO`), a full one or missing permissions is thrown instead: that is not damage,
    /// and the check could not be made.
    private func verifyDatabase(_ db: Connection, pages: inout Int, problems: inout [String]) throws {
        pages = Int(try db.scalar("PRAGMA page_count")?.integerValue ?? 0)
        do {
            // SQLCipher 4.x: checks the HMAC of every page, free pages included.
            for row in try db.rows("PRAGMA cipher_integrity_check") {
                problems.append("page check: \(row.first?.textValue ?? "?")")
            }
            let rows = try db.rows("PRAGMA integrity_check")
            let messages = rows.compactMap { $0.first?.textValue }
            if messages != ["ok"] {
                problems += messages.map { "integrity check: \($0)" }
            }
            // Read every row of every table: each page on the way is decrypted and authenticated.
            let tables = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap {
                $0.first?.textValue
            }
            for table in tables {
                let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                try db.forEachRow("SELECT * FROM \(quoted)") { _ in }
            }
        } catch let error as DatabaseError {
            if let environment = StoreError.classifyingEnvironment(error) { throw environment }
            problems.append("database: \(error.errorDescription ?? "unreadable page")")
        }
    }

    /// Authenticates every chunk of every attachment and checks that rows and files match.
    func verifyAttachments() throws -> (checked: Int, problems: [String]) {
        let storage = attachmentStorage
        let recorded = try Store.mappingDatabaseErrors {
            try read { db in try db.rows("SELECT id, length FROM attachments ORDER BY id") }
        }
        var problems: [String] = []
        var checked = 0
        var ids = Set<String>()
        for row in recorded {
            guard let id = row[0].textValue else { continue }
            ids.insert(id)
            do {
                let reader = try AttachmentReader(
                    id: id, path: storage.readablePath(of: id), masterKey: storage.masterKey,
                    recordedLength: row[1].integerValue.map { UInt64(max(0, $0)) })
                if reader.length != UInt64(row[1].integerValue ?? -1) {
                    problems.append(
                        "attachment \(id): length \(reader.length) does not match the recorded \(row[1].integerValue ?? -1)"
                    )
                }
                try reader.forEachChunk { _ in }
                checked += 1
            } catch let error as AttachmentError {
                if case .io(_, let operation, let code) = error {
                    let failure = SystemError(operation: operation, path: storage.readablePath(of: id), errno: code)
                    if case .ioError = StoreError.classifying(failure) { throw StoreError.classifying(failure) }
                }
                problems.append("attachment \(id): \(error.errorDescription ?? "unreadable")")
            }
        }
        for name in FileSystem.contents(of: layout.attachments) where !ids.contains(name) {
            problems.append("attachment file \(name) is not recorded in the database")
        }
        return (checked, problems)
    }
}
