/// What adding an attachment returns: enough to find it again and describe it. Store it in a
/// document (it is `Codable`); a document holding a token keeps the attachment from garbage
/// collection.
public struct AttachmentToken: Codable, Hashable, Sendable {
    /// The attachment's identifier (32 hex digits, random: it says nothing about the content).
    public var id: String
    /// Length of the content in bytes.
    public var length: UInt64
    /// The content type the caller gave (for example `application/pdf`), if any.
    public var contentType: String?
    /// The caller's own metadata.
    public var metadata: [String: String]

    /// Creates a token.
    public init(id: String, length: UInt64, contentType: String? = nil, metadata: [String: String] = [:]) {
        self.id = id
        self.length = length
        self.contentType = contentType
        self.metadata = metadata
    }

    /// The key under which documents embed a reference: `{"cipherdexAttachment": "<id>", …}`.
    public static let referenceKey = "cipherdexAttachment"

    private enum CodingKeys: String, CodingKey {
        case id = "cipherdexAttachment"
        case length, contentType, metadata
    }
}
