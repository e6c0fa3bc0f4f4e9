import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `cipherdex delete STORE [--yes]`.
struct DeleteCommand: Command {
    static let name = "delete"
    static let summary = "delete a store and every file it owns"
    static let help = """
        USAGE: cipherdex delete STORE [--yes]

        Removes every file the store owns (and its directory when nothing else is in it). Refuses
        while the store is open. Asks for confirmation (any answer but y or yes: exit 1,
        notConfirmed) on a terminal unless --yes is given; without a terminal, --yes is required.
        Prints "deleted STORE" (exit 0) once the store is gone; when its folder stays, the same
        line says why: it holds files that are not the store's, or it could not be removed (left
        empty: its parent not writable, a mount point…). A failure once the deletion has begun
        (deletionIncomplete, exit 17, 18, 19 or 22 by its cause) says the store is deleted (it no
        longer opens) but its clean-up is incomplete: fix the cause, then delete it again.

        OPTIONS:
          --yes    do not ask
        """

    let path: String
    let confirmed: Bool

    init(parsing arguments: inout Arguments) throws {
        confirmed = arguments.flag("--yes")
        path = try arguments.path("STORE")
        if !confirmed && isatty(STDIN_FILENO) != 1 {
            throw CLIError.usage("refusing to delete without --yes when not on a terminal")
        }
    }

    func run() throws {
        if !confirmed {
            try Confirmation.ask("Delete the store at \(path) and all its data?", declined: "not deleted")
        }
        // The store is gone whatever became of its folder: exit 0, and the line says when the
        // folder stays (holding other files, or left empty with the reason).
        let folder = try Store.deleteReportingFolder(at: path)
        Output.committed("the store at \(path) is deleted")
        try Output.print(SearchCLI.singleLine("deleted \(path)" + (folder.note.map { " (\($0))" } ?? "")))
    }
}
