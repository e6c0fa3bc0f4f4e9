/// One committed change to a document, as delivered to observers.
public struct DocumentChange: Sendable, Hashable {
    /// What happened to the document.
    public enum Kind: String, Sendable, Hashable {
        /// The document was created.
        case insert
        /// The document's content was replaced.
        case update
        /// The document was removed (also once per document when its collection is dropped).
        case remove
    }

    /// The collection's name.
    public let collection: String
    /// The document's id.
    public let id: String
    /// What happened.
    public let kind: Kind

    /// A change record.
    public init(collection: String, id: String, kind: Kind) {
        self.collection = collection
        self.id = id
        self.kind = kind
    }
}
