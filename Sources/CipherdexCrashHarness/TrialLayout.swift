import Foundation

/// The folder of one trial (or of an operation's template): the store, the ids of the
/// template's attachments, and the folder `folderIndex` syncs.
struct TrialLayout: Sendable {
    /// The trial's folder.
    let directory: String

    /// The store's directory.
    var store: String { directory + "/store" }
    /// One attachment id a line, in the order the template added them.
    var ids: String { directory + "/ids" }
    /// The folder `folderIndex` fills and syncs.
    var folder: String { directory + "/folder" }
    /// The backup `backup` writes and `restore` reads.
    var backup: String { directory + "/backup" }

    /// The template's attachment ids.
    func templateIDs() throws -> [String] {
        guard FileManager.default.fileExists(atPath: ids) else { return [] }
        return try String(contentsOfFile: ids, encoding: .utf8).split(separator: "\n").map(String.init)
    }
}
