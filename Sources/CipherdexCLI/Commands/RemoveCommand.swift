import Cipherdex

/// `cipherdex remove STORE UID`.
struct RemoveCommand: Command {
    static let name = "remove"
    static let summary = "remove a document from the search index"
    static let help = """
        USAGE: cipherdex remove STORE UID [KEY]

        Removes UID from the search index, and the copy `cipherdex add` stored of it unless a
        document still references that attachment. Files indexed from a folder stay where they
        are (the next `cipherdex index` of the folder adds them back). Exit status 1
        (documentNotFound) when UID is not in the index.

        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let uid: String

    init(parsing arguments: inout Arguments) throws {
        target = try StoreArguments(parsing: &arguments)
        uid = try arguments.positional("UID")
    }

    func run() throws {
        let store = try target.open()
        defer { store.close() }
        guard try store.library.remove(uid: uid) else { throw SearchError.documentNotFound(uid: uid) }
        Output.committed("\(uid) is removed from the index")
        try Output.print("removed \(SearchCLI.singleLine(uid))")
    }
}
