import Cipherdex
import Foundation

/// `cipherdex attach STORE FILE [--doc COLLECTION/ID] [--json]`.
struct AttachCommand: Command {
    static let name = "attach"
    static let summary = "store a file as an encrypted attachment"
    static let help = """
        USAGE: cipherdex attach STORE FILE [--doc COLLECTION/ID] [--content-type TYPE] [--json] [KEY]

        Encrypts FILE into the store (streamed: memory stays flat) and prints the attachment's id,
        or the whole token with --json. Identical content is stored once, under one id: attached
        to two documents, it is one attachment, and `detach` removes it from both.

        OPTIONS:
          --doc COLLECTION/ID   also append the token to that document's "attachments" array
                                (the document must exist; a non-array "attachments" member is
                                refused with fieldNotAnArray), in the same transaction
          --content-type TYPE   the content type to record (default: from the file extension);
                                content stored already keeps the type recorded first, and
                                only this call's token carries TYPE
          --json                print the token as JSON
        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let file: String
    let document: (collection: String, id: String)?
    let contentType: String?
    let json: Bool

    init(parsing arguments: inout Arguments) throws {
        json = arguments.flag("--json")
        contentType = try arguments.option("--content-type")
        if let target = try arguments.option("--doc") {
            guard let slash = target.firstIndex(of: "/"), slash != target.startIndex,
                slash != target.index(before: target.endIndex)
            else { throw CLIError.usage("--doc needs COLLECTION/ID") }
            document = (String(target[..<slash]), String(target[target.index(after: slash)...]))
        } else {
            document = nil
        }
        target = try StoreArguments(parsing: &arguments)
        file = try arguments.path("FILE")
    }

    func run() throws {
        // What is not a regular file is the library's to refuse (`sourceNotRegularFile`); here,
        // before the store is opened, what cannot be opened at all, with its reason: a permission
        // as the library says it (`permissionDenied`, exit 17).
        guard FileManager.default.isReadableFile(atPath: file) else {
            let reason = InputFileCheck.problem(with: file) ?? "not readable"
            let missing = reason == "no such file"
            let code = InputFileCheck.isPermissionDenied(file) ? EACCES : missing ? ENOENT : EIO
            throw InputFileCheck.openFailure(file, errno: code, reason: reason)
        }
        let store = try target.open()
        defer { store.close() }
        let metadata = ["filename": PathName.lastComponent(of: file)]
        let token: AttachmentToken
        if let document {
            // One transaction: the attachment exists only if the document takes its token.
            token = try store.transaction { tx in
                let collection = try tx.collection(document.collection)
                guard let existing = try collection.get(id: document.id), case .object(var members) = existing.value
                else {
                    throw CLIError.failed(
                        code: "documentNotFound", message: "no document \(document.id) in \(document.collection)")
                }
                // Never replace an existing member of another type: refuse before storing anything.
                let existingList = members[Self.attachmentsField]
                if let existingList, existingList.arrayValue == nil {
                    throw DocumentError.fieldNotAnArray(field: Self.attachmentsField)
                }
                let token = try tx.addAttachment(
                    fromFile: file, contentType: contentType ?? Self.contentType(of: file), metadata: metadata)
                var list = existingList?.arrayValue ?? []
                list.append(try JSONValue(encoding: token))
                members[Self.attachmentsField] = .array(list)
                _ = try collection.upsert(id: document.id, value: .object(members))
                return token
            }
        } else {
            token = try store.addAttachment(fromFile: file, contentType: contentType, metadata: metadata)
        }
        Output.committed("the attachment \(token.id) is stored")
        if json {
            try Output.print(try JSONValue(encoding: token).canonicalString)
        } else {
            try Output.print(token.id)
        }
    }

    /// The document member that lists a document's attachment tokens.
    static let attachmentsField = "attachments"

    private static func contentType(of file: String) -> String? {
        switch (file as NSString).pathExtension.lowercased() {
        case "pdf": return "application/pdf"
        case "txt": return "text/plain"
        case "md", "markdown": return "text/markdown"
        case "json": return "application/json"
        default: return nil
        }
    }
}
