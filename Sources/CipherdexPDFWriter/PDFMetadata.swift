/// The document information a generated PDF carries.
public struct PDFMetadata: Sendable, Equatable {
    /// The document title.
    public var title: String?
    /// The author.
    public var author: String?
    /// The subject.
    public var subject: String?
    /// Keywords, as one string.
    public var keywords: String?
    /// The creating application.
    public var creator: String?

    /// Creates metadata; every field is optional.
    public init(title: String? = nil, author: String? = nil, subject: String? = nil, keywords: String? = nil, creator: String? = nil) {
        self.title = title
        self.author = author
        self.subject = subject
        self.keywords = keywords
        self.creator = creator
    }
}
