/// The searchable text of one document: its title, descriptive metadata and the text of each page.
///
/// Produced by a `TextExtractor`; it is plain data, safe to encode (the extraction helper sends it
/// to its parent in `ExtractedDocumentCoding`'s binary form) and to pass between threads.
public struct ExtractedDocument: Codable, Sendable, Equatable {
    /// The document's title from its metadata, when it has a non-empty one.
    public var title: String?
    /// Other descriptive metadata, by lower-case key: `author`, `subject`, `keywords`, `creator`,
    /// `producer`, `creationDate`, `modificationDate` (ISO 8601), `pdfVersion`. Empty values are
    /// left out.
    public var metadata: [String: String]
    /// The pages in document order (one page for formats without pages).
    public var pages: [ExtractedPage]

    /// Creates a document from its parts.
    public init(title: String?, metadata: [String: String] = [:], pages: [ExtractedPage]) {
        self.title = title
        self.metadata = metadata
        self.pages = pages
    }

    /// The text of every page, separated by form feeds (the pdftotext convention).
    public var fullText: String {
        pages.map(\.text).joined(separator: "\u{0C}")
    }
}
