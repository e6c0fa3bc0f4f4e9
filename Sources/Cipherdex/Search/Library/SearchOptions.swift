/// How a search matches and what it returns (the matching options of Nutrient's PDFLibrary).
public struct SearchOptions: Sendable, Equatable {
    /// Words match whole words only (by default each word matches the words it begins).
    public var exactWordsOnly = false
    /// The whole search string is one exact phrase (PDFLibrary's `matchExactPhrasesOnly`):
    /// `this is a test` does not match "this is a quick test", nor "this is a testing"; the
    /// query syntax (quotes, `-`, `OR`, `*`) is then plain text.
    public var exactPhrasesOnly = false
    /// Leave out annotation text.
    public var excludeAnnotations = false
    /// Leave out page text (search annotations only).
    public var excludeDocumentText = false
    /// Most results (matching pages and annotations) in total.
    public var maximumResults = 500
    /// Most results per document (nil: no limit besides the total).
    public var maximumResultsPerDocument: Int?
    /// Whether to cut preview texts.
    public var includePreviews = true
    /// Most results that get a preview, best first (PDFLibrary's `maximumPreviewResultsTotal`;
    /// nil: every result). Results past it keep their page and score, with `hasPreview` false.
    public var maximumPreviewResults: Int?
    /// Most results of one document that get a preview (PDFLibrary's
    /// `maximumPreviewResultsPerDocument`; nil: no limit besides the total).
    public var maximumPreviewResultsPerDocument: Int?
    /// Characters of context before the first match in a preview.
    public var previewCharactersBefore = 20
    /// Characters in a preview in all.
    public var previewLength = 160

    /// Default options.
    public init() {}
}
