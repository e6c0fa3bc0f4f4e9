import Cipherdex

/// `cipherdex verify STORE KEY`.
struct VerifyCommand: Command {
    static let name = "verify"
    static let summary = "decrypt and authenticate every page and attachment, check integrity"
    static let help = """
        USAGE: cipherdex verify STORE [KEY] [--json]

        Authenticates every page of the database file, free pages included (a damaged one is
        named by its number), reads every row, runs SQLite's integrity check, authenticates
        every chunk of every attachment and checks that every indexed document's stored copy is
        there. Exits 15 (storeCorrupted) when
        anything is wrong, naming each problem. A file it may not read is not damage: exit 17
        (permissionDenied), naming the file.

        OPTIONS:
          --json                      print the report as JSON
        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let json: Bool

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag("--json")
        target = try StoreArguments(parsing: &arguments)
    }

    func run() throws {
        let store = try target.open()
        defer { store.close() }
        let report = try store.verify()
        if json {
            try Output.print(try Output.json(report))
        } else {
            try Output.print("pages checked:        \(report.pagesChecked)")
            try Output.print("attachments checked:  \(report.attachmentsChecked)")
            for problem in report.problems { try Output.print("problem: \(problem)") }
            try Output.print(report.isHealthy ? "ok" : "\(report.problems.count) problem(s)")
        }
        guard report.isHealthy else {
            throw StoreError.storeCorrupted(reason: "verification found \(report.problems.count) problem(s)")
        }
    }
}
