import Cipherdex
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `cipherdex export STORE DIR [KEY] [--yes]`.
struct ExportCommand: Command {
    static let name = "export"
    static let summary = "write every document, attachment and page text as PLAINTEXT files"
    static let help = """
        USAGE: cipherdex export STORE DIR [KEY] [--yes]

        Writes everything the store holds into DIR, which must not exist or be empty, WITHOUT
        encryption: collections.jsonl and collections/<name>.jsonl (every document),
        attachments/<id> (every attachment's content) with attachments.jsonl (content type,
        metadata, referencing documents), and search/documents.jsonl and search/pages.jsonl (the
        index's page text). The layout is specified in FORMAT.md; tools/cipherdex-recover writes
        the same files. An export that fails, or is stopped by Ctrl-C (SIGINT) or SIGTERM, removes
        what it wrote (a kill -9 cannot: remove DIR then). Asks for confirmation (any answer but y
        or yes: exit 1, notConfirmed) on a terminal unless --yes is given; without a terminal,
        --yes is required.

        OPTIONS:
          --yes    do not ask
        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let destination: String
    let confirmed: Bool

    init(parsing arguments: inout Arguments) throws {
        confirmed = arguments.flag("--yes")
        target = try StoreArguments(parsing: &arguments)
        destination = try arguments.path("DIR")
        if !confirmed && isatty(STDIN_FILENO) != 1 {
            throw CLIError.usage("refusing to write plaintext without --yes when not on a terminal")
        }
    }

    func run() throws {
        if !confirmed {
            try Confirmation.ask(
                "Write the store's data UNENCRYPTED into \(destination)?", declined: "not exported")
        }
        let store = try target.open()
        defer { store.close() }
        let summary = try Self.export(store, to: destination)
        Output.committed("the export of \(target.path) to \(destination) is written")
        try Output.print(
            "exported \(summary.documents) documents in \(summary.collections) collections, "
                + "\(summary.attachments) attachments, \(summary.pages) page texts of \(summary.searchDocuments) "
                + "indexed documents to \(SearchCLI.singleLine(destination)) (plaintext)")
    }

    /// `store.export(to:)`, stopped by SIGINT or SIGTERM at its next check (every 256 rows,
    /// between attachments and their chunks): what it wrote is removed, as a failed export's
    /// is, and the process then ends by the signal it got (exit status 130 or 143).
    private static func export(_ store: Store, to destination: String) throws -> ExportSummary {
        let signals = [SIGINT, SIGTERM]
        let received = Atomic<Int32>(0)
        let running = Mutex<Task<ExportSummary, Error>?>(nil)
        // Caught before the export starts: a signal in between must not end it with files left.
        let previous = signals.map { signal($0, SIG_IGN) }
        let sources = signals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                received.store(number, ordering: .relaxed)
                running.withLock { $0?.cancel() }
            }
            source.resume()
            return source
        }
        let task = Task { try await store.exportAsync(to: destination) }
        running.withLock { $0 = task }
        if received.load(ordering: .relaxed) != 0 { task.cancel() }
        let outcome = Mutex<Result<ExportSummary, Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Task {
            let result = await task.result
            outcome.withLock { $0 = result }
            finished.signal()
        }
        finished.wait()
        for source in sources { source.cancel() }
        for (number, handler) in zip(signals, previous) { signal(number, handler) }
        let result = outcome.withLock { $0! }
        let signalled = received.load(ordering: .relaxed)
        // Stopped by the signal (not failed for another reason, nor finished before it came).
        if signalled != 0, case .failure(let error) = result, error is CancellationError {
            // The export removed its files; end as the signal would have ended it, the store closed.
            FileHandle.standardError.write(Data("cipherdex: export stopped; nothing of it is left\n".utf8))
            store.close()
            signal(signalled, SIG_DFL)
            raise(signalled)
        }
        return try result.get()
    }
}
