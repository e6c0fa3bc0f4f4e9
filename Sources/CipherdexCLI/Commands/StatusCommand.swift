import Cipherdex
import Foundation

/// `cipherdex status STORE [UID] [--json]`.
struct StatusCommand: Command {
    static let name = "status"
    static let summary = "where documents stand in the search index"
    static let help = """
        USAGE: cipherdex status STORE [UID] [--json] [KEY]

        Prints the search-index status of UID, or of every indexed document sorted by UID, one
        line each:

          <uid>  finished (N pages)
          <uid>  failed: <reason>
          <uid>  locked (password-protected, not indexed)

        A document indexed with OCR adds `; OCR: K of N scanned pages recognised` (pending and
        failed pages named); in JSON, "ocr": {"languages", "candidatePages", "recognizedPages",
        "failures": [{"pageIndex", "reason"}]}.

        (queued and indexing appear only while a process is indexing.) With --json, an object
        {"uid": …, "state": …, "pageCount": N, "reason": …} for UID, or an array of them;
        state is one of queued, indexing, finished, failed, locked. A UID not in the index exits
        with status 1 (documentNotFound).

        OPTIONS:
          --json   print JSON
        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let uid: String?
    let json: Bool

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag("--json")
        target = try StoreArguments(parsing: &arguments)
        uid = arguments.optionalPositional()
    }

    func run() throws {
        let store = try target.open()
        defer { store.close() }
        if let uid {
            let status = try store.library.status(of: uid)
            guard status != .unknown else { throw SearchError.documentNotFound(uid: uid) }
            if json {
                try Output.print(json(uid: uid, status: status, library: store.library).canonicalString)
            } else {
                try Output.print(
                    "\(SearchCLI.singleLine(uid))  \(SearchCLI.describe(status))"
                        + OCROptions.summary(uid: uid, library: store.library))
            }
            return
        }
        let statuses = try store.library.statuses()
        if json {
            try Output.print(
                JSONValue.array(statuses.map { json(uid: $0.uid, status: $0.status, library: store.library) })
                    .canonicalString)
        } else {
            for entry in statuses {
                try Output.print(
                    "\(SearchCLI.singleLine(entry.uid))  \(SearchCLI.describe(entry.status))"
                        + OCROptions.summary(uid: entry.uid, library: store.library))
            }
        }
    }

    /// The status JSON, with an `ocr` member when the document was indexed with OCR.
    private func json(uid: String, status: IndexStatus, library: SearchLibrary) -> JSONValue {
        let value = SearchCLI.json(uid: uid, status: status)
        guard case .object(var members) = value, let ocr = try? library.ocrStatus(of: uid) else { return value }
        let failures = ocr.failures.map {
            JSONValue.object(["pageIndex": .number(JSONNumber($0.pageIndex)), "reason": .string($0.reason)])
        }
        members["ocr"] = .object([
            "languages": .array(ocr.languages.map(JSONValue.string)),
            "candidatePages": .array(ocr.candidatePages.map { .number(JSONNumber($0)) }),
            "recognizedPages": .array(ocr.recognizedPages.map { .number(JSONNumber($0)) }),
            "failures": .array(failures),
        ])
        return .object(members)
    }
}
