import Foundation

/// A document as its stored JSON text (`DocumentCollection.findJSON(where:orderBy:limit:)`):
/// what `Document` holds, without the `JSONValue` tree.
public struct DocumentJSON: Sendable, Hashable {
    /// The document's id.
    public let id: String
    /// The document's canonical JSON text as stored (see `DocumentCollection.json(id:)`): an
    /// object, the bytes of `JSONValue.canonicalBytes` of its value.
    public let json: Data

    /// A document's id with its JSON text, taken as it is (nothing is checked).
    public init(id: String, json: Data) {
        self.id = id
        self.json = json
    }
}
