import Cipherdex
import Foundation

/// `cipherdex add STORE FILE… [--uid UID]`.
struct AddCommand: Command {
    static let name = "add"
    static let summary = "store files encrypted and index them for search"
    static let help = """
        USAGE: cipherdex add STORE FILE… [--uid UID] [--ocr [--ocr-languages LIST]]
                             [--passwords FILE | --password-file FILE] [KEY]

        Stores each FILE as an encrypted attachment and indexes its text for `cipherdex search`
        (PDF, .txt, .text, .md, .markdown), then waits until every file is indexed and prints one
        line per file:

          <uid>: finished (N pages)
          <uid>: failed: <reason>
          <uid>: locked (password-protected, not indexed)
          <uid>: locked (the password given does not open it; not indexed)

        With --ocr, a PDF's scanned pages are recognised after its text layer is indexed, and the
        line ends with `; OCR: K of N scanned pages recognised` (and each page that failed, with
        why); a page recognised before for the same content and languages is not recognised
        again.

        A file's UID is its name unless --uid gives one; adding a UID again replaces its entry
        (a file whose content did not change is not re-indexed). Every FILE is checked before
        anything is stored. Exit status 1 (indexingFailed) when any file failed; a locked file is
        reported but is not a failure. When the index could not be written to the store (disk
        full), those files are `failed: could not write the index: <reason>` and the exit status
        is 1 (indexWriteFailed); nothing of them is kept, and adding them again once there is
        room indexes them.

        OPTIONS:
          --uid UID   the UID to index the file under (only with a single FILE)
        \(OCROptions.help)
        PASSWORDS (of password-protected PDFs; never stored or printed):
        \(PasswordOptions.help)
        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let passwords: PasswordOptions
    let ocr: OCROptions
    let files: [(path: String, uid: String)]

    init(parsing arguments: inout Arguments) throws {
        let uid = try arguments.option("--uid")
        ocr = try OCROptions(parsing: &arguments)
        passwords = try PasswordOptions(parsing: &arguments)
        target = try StoreArguments(parsing: &arguments)
        let paths = arguments.remainingPositionals()
        guard !paths.isEmpty else { throw CLIError.usage("missing FILE") }
        guard !paths.contains("") else { throw CLIError.usage("FILE is an empty path") }
        if let uid {
            guard paths.count == 1 else { throw CLIError.usage("--uid needs exactly one FILE") }
            guard !uid.isEmpty else { throw CLIError.usage("--uid needs a non-empty UID") }
        }
        files = paths.map { ($0, uid ?? PathName.lastComponent(of: $0)) }
        var seen: [String: String] = [:]
        for file in files {
            if let other = seen[file.uid] {
                throw CLIError.usage(
                    "\(other) and \(file.path) would both be indexed as '\(file.uid)'; add them separately with --uid")
            }
            seen[file.uid] = file.path
        }
    }

    func run() throws {
        // Check every file first, so that a typo stores nothing.
        for file in files {
            if let problem = InputFileCheck.problem(with: file.path) {
                throw SearchError.unreadable(path: file.path, reason: problem)
            }
            let fileExtension = (file.path as NSString).pathExtension.lowercased()
            guard SearchCLI.supportedExtensions.contains(fileExtension) else {
                throw SearchError.unsupportedFileType(fileExtension)
            }
        }
        try ocr.checkLanguages()
        let store = try target.open()
        defer { store.close() }
        let library = store.library
        if let provider = passwords.provider { library.configure { $0.passwordProvider = provider } }
        try ocr.apply(to: library)
        for file in files {
            try library.add(fileAt: file.path, uid: file.uid)
        }
        // A write of the index that failed (disk full) is reported after the per-file lines.
        var writeFailure: Error?
        do { try library.waitUntilIndexed() } catch { writeFailure = error }
        if writeFailure == nil {
            Output.committed("the files are indexed as far as they could be (`cipherdex status` lists each)")
        }
        var failed = 0
        var locked = 0
        for file in files {
            let status = try library.status(of: file.uid)
            switch status {
            case .failed: failed += 1
            case .locked: locked += 1
            default: break
            }
            let description =
                status == .locked ? passwords.lockedDescription(uid: file.uid) : SearchCLI.describe(status)
            try Output.print(
                "\(SearchCLI.singleLine(file.uid)): \(description)"
                    + OCROptions.summary(uid: file.uid, library: library))
        }
        if locked > 0 {
            Output.printError(
                "cipherdex: note: \(locked) password-protected file(s) stored but not indexed (locked)")
        }
        if let writeFailure { throw writeFailure }
        if failed > 0 {
            throw CLIError.failed(
                code: "indexingFailed", message: "\(failed) of \(files.count) file(s) could not be indexed")
        }
    }
}
