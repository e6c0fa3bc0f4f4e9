import Cipherdex
import Foundation

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
        encryption: collections.jsonl and collections/<name>.jsonl (every document), attachments/<id>
        (every attachment's content) with attachments.jsonl (content type, metadata, referencing
        documents), and search/documents.jsonl and search/pages.jsonl (the index's page text).
        The layout is specified in FORMAT.md; tools/cipherdex-recover writes the same files.
        Asks for confirmation on a terminal unless --yes is given; without a terminal, --yes is
        required.

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
        destination = try arguments.positional("DIR")
        if !confirmed && isatty(STDIN_FILENO) != 1 {
            throw CLIError.usage("refusing to write plaintext without --yes when not on a terminal")
        }
    }

    func run() throws {
        if !confirmed {
            FileHandle.standardError.write(
                Data("Write the store's data UNENCRYPTED into \(destination)? [y/N] ".utf8))
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                try Output.print("not exported")
                return
            }
        }
        let store = try target.open()
        defer { store.close() }
        let summary = try store.export(to: destination)
        Output.committed("the export of \(target.path) to \(destination) is written")
        try Output.print(
            "exported \(summary.documents) documents in \(summary.collections) collections, "
                + "\(summary.attachments) attachments, \(summary.pages) page texts of \(summary.searchDocuments) "
                + "indexed documents to \(destination) (plaintext)")
    }
}
