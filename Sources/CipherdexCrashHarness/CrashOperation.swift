/// A kind of write the harness interrupts: the child performs `steps` of them in a row,
/// acknowledging each one once the library call returned.
enum CrashOperation: String, CaseIterable, Sendable {
    /// Many small document inserts.
    case docSmall
    /// Documents of a few MB each, so commits cross WAL checkpoints.
    case docLarge
    /// Removal of documents one by one.
    case docRemove
    /// Small attachments added from files.
    case attachSmall
    /// Attachments of tens of MB.
    case attachLarge
    /// Attachments removed one by one (`removeAttachment`).
    case detach
    /// `library.add(fileAt:)` of PDFs and text files, each waited for.
    case libraryAdd
    /// `library.sync(folder:)` after each new file in the folder.
    case folderIndex
    /// `library.setTokenizer`, alternating, each rebuilding the index.
    case tokenizerChange
    /// `rotateKey(to:)`, alternating between two keys.
    case rekey
    /// `Store.delete(at:)` of a store with documents and attachments.
    case delete
    /// `Store.open` of a missing path (creation).
    case create
    /// `collectUnreferencedAttachments()`.
    case collect
    /// `Store.reencrypt`, alternating between keys A and B, of a store with documents,
    /// attachments and an index.
    case reencrypt
    /// `Store.encrypt` of an unencrypted store (to key A).
    case encrypt
    /// `Store.decrypt` of a store encrypted with key A.
    case decrypt
    /// `store.backup(to:)` of an open store, three times into the same destination (the
    /// first builds it, the others are incremental), each after a document insert and an
    /// attachment removal.
    case backup
    /// `Store.restore` of a backup over the (closed) store it was made from, confirmed.
    case restore

    /// How many acknowledged writes the child performs.
    var steps: Int {
        switch self {
        case .docSmall: return 120
        case .docLarge: return 4
        case .docRemove: return 60
        case .attachSmall: return 30
        case .attachLarge: return 2
        case .detach: return 20
        case .libraryAdd: return 6
        case .folderIndex: return 6
        case .tokenizerChange: return 6
        case .rekey: return 12
        case .reencrypt, .backup: return 3
        case .delete, .create, .collect, .encrypt, .decrypt, .restore: return 1
        }
    }

    /// Whether the store exists before the child starts (a copy of the operation's template).
    var needsTemplate: Bool { self != .create }

    /// Whether the child converts a closed store (`Store.reencrypt`, `encrypt`, `decrypt`).
    var isConversion: Bool { self == .reencrypt || self == .encrypt || self == .decrypt }

    /// Whether the operation writes a second store, `TrialLayout.backup` (`backup`), or reads
    /// it (`restore`).
    var usesBackup: Bool { self == .backup || self == .restore }

    /// Whether the store may be unencrypted after a kill (before an `encrypt` switch, after a
    /// `decrypt` one).
    var mayBeUnencrypted: Bool { self == .encrypt || self == .decrypt }

    /// Parses a comma-separated list of names (`all` for every operation).
    static func parseList(_ text: String) throws -> [CrashOperation] {
        if text == "all" { return allCases }
        return try text.split(separator: ",").map { name in
            guard let operation = CrashOperation(rawValue: String(name)) else {
                throw HarnessError.usage(
                    "unknown operation \(name); known: \(allCases.map(\.rawValue).joined(separator: ","))")
            }
            return operation
        }
    }
}
