/// The text found on one page of a document.
public struct ExtractedPage: Codable, Sendable, Equatable {
    /// The zero-based page number.
    public var index: Int
    /// The page's text in reading order, as the extractor laid it out.
    public var text: String
    /// The text of the page's annotations (notes, free text, highlight comments...), one entry per
    /// annotation that has any, in page order.
    public var annotations: [String]

    /// Creates a page from its parts.
    public init(index: Int, text: String, annotations: [String] = []) {
        self.index = index
        self.text = text
        self.annotations = annotations
    }
}
