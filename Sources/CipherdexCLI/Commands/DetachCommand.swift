import Cipherdex

/// `cipherdex detach STORE ATTACHMENT`.
struct DetachCommand: Command {
    static let name = "detach"
    static let summary = "remove an attachment (and its tokens from documents' attachments arrays)"
    static let help = """
        USAGE: cipherdex detach STORE ATTACHMENT [KEY]

        Removes the attachment's tokens from the "attachments" array of every document that
        lists it, and deletes the attachment, in one transaction. The stored original of a
        document in the search index is refused (attachmentHeld): `cipherdex remove` it instead.

        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let id: String

    init(parsing arguments: inout Arguments) throws {
        target = try StoreArguments(parsing: &arguments)
        id = try arguments.positional("ATTACHMENT")
    }

    func run() throws {
        let store = try target.open()
        defer { store.close() }
        var updated = 0
        let removed = try store.transaction { tx -> Bool in
            for name in try tx.collectionNames() {
                let collection = try tx.collection(name)
                for document in try collection.list() {
                    guard case .object(var members) = document.value, let list = members["attachments"]?.arrayValue
                    else {
                        continue
                    }
                    let kept = list.filter { $0[path: AttachmentToken.referenceKey]?.stringValue != id }
                    guard kept.count != list.count else { continue }
                    members["attachments"] = .array(kept)
                    _ = try collection.upsert(id: document.id, value: .object(members))
                    updated += 1
                }
            }
            return try tx.removeAttachment(id)
        }
        guard removed else { throw AttachmentError.notFound(id: id) }
        Output.committed("the attachment \(id) is removed")
        try Output.print(
            "removed attachment \(id)" + (updated > 0 ? " (and its token from \(updated) document(s))" : ""))
    }
}
