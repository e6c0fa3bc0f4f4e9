import Cipherdex
import Foundation

/// `cipherdex index STORE FOLDER [--ext pdf,txt,md]`.
struct IndexCommand: Command {
    static let name = "index"
    static let summary = "sync the search index with a folder (new, changed, deleted files)"
    static let help = """
        USAGE: cipherdex index STORE FOLDER [--ext pdf,txt,md] [--ocr [--ocr-languages LIST]]
                               [--passwords FILE | --password-file FILE] [KEY]

        Syncs the search index with the files under FOLDER (recursively, hidden files left out):
        new files are indexed, changed ones (size or modification time, then content) re-indexed,
        and files that disappeared removed from the index. A document's UID is its path relative
        to FOLDER. The files are indexed in place: unlike `cipherdex add`, no copy is stored.
        Waits until indexing is done; on a terminal, a progress line is shown on standard error.
        Ends with a summary line:

          added A, changed C, removed R, unchanged U, failed F, locked L

        where added and changed count the files the sync found new or changed, whatever became of
        them, and failed and locked count the files indexed in this run (a file that failed or was
        locked before is tried again, and counted as `retried T` after them); each failed file is also
        listed as `<uid>: failed: <reason>`, each locked file that had a password as `<uid>: locked
        (the password given does not open it; not indexed)`, and each entry left out as `<path>: skipped: <reason>`
        (counted as `skipped S` at the end of the summary line): a UID that belongs to another
        document, a name that is not valid UTF-8 (shown with `\\xHH` escapes), a folder that cannot
        be read (its documents indexed before are kept), an entry named like a document that is not
        a regular file (a FIFO, device, socket, a link to nothing). Links to folders, and links to
        files outside FOLDER, are not followed. Exit status 1 (indexingFailed) when any file failed;
        when the index could not be written to the store (disk full), those files fail with
        `could not write the index: <reason>` and the exit status is 1 (indexWriteFailed):
        nothing of them is kept, and running `index` again once there is room indexes them.
        Exit status 1 (syncIncomplete) too when a name was not valid UTF-8 or a folder could not
        be read: the index does not cover the whole folder.

        OPTIONS:
          --ext LIST   comma-separated file extensions to index (default: pdf,txt,md)
        \(OCROptions.help)
        PASSWORDS (of password-protected PDFs; never stored or printed):
        \(PasswordOptions.help)
        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let passwords: PasswordOptions
    let ocr: OCROptions
    let folder: String
    let extensions: Set<String>

    init(parsing arguments: inout Arguments) throws {
        let ext = try arguments.option("--ext")
        ocr = try OCROptions(parsing: &arguments)
        passwords = try PasswordOptions(parsing: &arguments)
        target = try StoreArguments(parsing: &arguments)
        folder = try arguments.path("FOLDER")
        if let ext {
            let list = ext.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: CharacterSet.whitespaces.union(CharacterSet(charactersIn: "."))).lowercased()
            }
            guard !list.isEmpty, !list.contains(where: \.isEmpty) else {
                throw CLIError.usage("--ext needs a comma-separated list of extensions, such as pdf,txt,md")
            }
            let unsupported = list.filter { !SearchCLI.supportedExtensions.contains($0) }
            guard unsupported.isEmpty else {
                throw CLIError.usage(
                    "--ext: no text extractor for \(unsupported.map { "." + $0 }.joined(separator: ", ")) (supported: "
                        + SearchCLI.supportedExtensions.sorted().joined(separator: ",") + ")")
            }
            extensions = Set(list)
        } else {
            extensions = ["pdf", "txt", "md"]
        }
    }

    func run() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SearchError.notAFolder(folder)
        }
        try ocr.checkLanguages()
        let store = try target.open()
        defer { store.close() }
        let library = store.library
        if let provider = passwords.provider { library.configure { $0.passwordProvider = provider } }
        try ocr.apply(to: library)
        let progress = ProgressLine(enabled: SearchCLI.stderrIsTerminal)
        // Subscribe before syncing: workers start as soon as the first file is queued.
        let events = library.events()
        let watcher = Task.detached {
            for await event in events {
                switch event {
                case .started(let uid): progress.started(uid)
                case .finished(let uid, _), .failed(let uid, _), .locked(let uid), .unchanged(let uid):
                    progress.ended(uid)
                case .pageIndexed, .removed: break
                }
            }
        }
        let summary: FolderSyncSummary
        do {
            summary = try library.sync(folder: folder, allowedExtensions: extensions)
        } catch {
            watcher.cancel()
            progress.clear()
            throw error
        }
        // Retried files (failed or locked in an earlier run) are indexed in this one too.
        let indexed = summary.added + summary.changed + summary.retried
        progress.setTotal(indexed.count)
        var writeFailure: Error?
        do { try library.waitUntilIndexed() } catch { writeFailure = error }
        if writeFailure == nil { progress.waitUntilAllEnded() }
        // Not when the index could not be written: then `indexWriteFailed` (run `index` again once
        // there is room) is the advice, not "do not run the command again".
        if writeFailure == nil {
            Output.committed("the folder is indexed as far as it could be (`cipherdex status` lists each file)")
        }
        watcher.cancel()
        progress.clear()
        var failures: [(uid: String, reason: String)] = []
        var locked = 0
        // A locked file that had a password is listed: the password given does not open it.
        var wrongPasswords: [String] = []
        for uid in indexed {
            switch try library.status(of: uid) {
            case .failed(let reason): failures.append((uid, reason))
            case .locked:
                locked += 1
                if passwords.hasPassword(for: uid) { wrongPasswords.append(uid) }
            default: break
            }
        }
        for failure in failures.sorted(by: { $0.uid < $1.uid }) {
            try Output.print(
                "\(SearchCLI.singleLine(failure.uid)): \(SearchCLI.describe(.failed(reason: failure.reason)))")
        }
        for uid in wrongPasswords.sorted() {
            try Output.print("\(SearchCLI.singleLine(uid)): \(passwords.lockedDescription(uid: uid))")
        }
        if ocr.languages != nil {
            for uid in indexed.sorted() {
                let ocrSummary = OCROptions.summary(uid: uid, library: library)
                if !ocrSummary.isEmpty { try Output.print("\(SearchCLI.singleLine(uid)): " + ocrSummary.dropFirst(2)) }
            }
        }
        var skipped = summary.conflicts.map {
            (path: $0, reason: "the UID belongs to another document (added, or from another folder)")
        }
        skipped += summary.skipped.map { (path: $0.path, reason: $0.reason) }
        for entry in skipped.sorted(by: { $0.path < $1.path }) {
            try Output.print("\(SearchCLI.singleLine(entry.path)): skipped: \(entry.reason)")
        }
        try Output.print(
            "added \(summary.added.count), changed \(summary.changed.count), removed \(summary.removed.count), "
                + "unchanged \(summary.unchanged.count), failed \(failures.count), locked \(locked)"
                + (summary.retried.isEmpty ? "" : ", retried \(summary.retried.count)")
                + (skipped.isEmpty ? "" : ", skipped \(skipped.count)"))
        if let writeFailure { throw writeFailure }
        if !failures.isEmpty {
            throw CLIError.failed(
                code: "indexingFailed",
                message:
                    "\(failures.count) of \(indexed.count) file(s) could not be indexed")
        }
        if !summary.skipped.isEmpty {
            throw CLIError.failed(
                code: "syncIncomplete",
                message:
                    "\(summary.skipped.count) entr\(summary.skipped.count == 1 ? "y" : "ies") of the folder could not be indexed (listed above)"
            )
        }
    }
}
