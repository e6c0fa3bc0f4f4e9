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
    /// Most results (matching pages and annotations) in total: 1 or more (less is
    /// `SearchError.invalidOption` when searching, as for every setting below out of its range).
    public var maximumResults = 500
    /// Most results per document (nil: no limit besides the total); 1 or more.
    public var maximumResultsPerDocument: Int?
    /// Whether to cut preview texts.
    public var includePreviews = true
    /// Most results that get a preview, best first (PDFLibrary's `maximumPreviewResultsTotal`;
    /// nil: every result; 0: none). Results past it keep their page and score, with `hasPreview`
    /// false.
    public var maximumPreviewResults: Int?
    /// Most results of one document that get a preview (PDFLibrary's
    /// `maximumPreviewResultsPerDocument`; nil: no limit besides the total); 0 or more.
    public var maximumPreviewResultsPerDocument: Int?
    /// Characters of context before the first match in a preview; 0 or more.
    public var previewCharactersBefore = 20
    /// Characters in a preview in all; 0 or more.
    public var previewLength = 160

    /// Default options.
    public init() {}
}

extension SearchOptions {
    /// Throws `SearchError.invalidOption` naming the first setting out of its range: a total or
    /// per-document result limit below 1, a preview cap, preview length or context below 0.
    func validate() throws {
        let atLeastOne: [(String, Int?)] = [
            ("maximumResults", maximumResults), ("maximumResultsPerDocument", maximumResultsPerDocument),
        ]
        for case (let name, let value?) in atLeastOne where value < 1 {
            throw SearchError.invalidOption(name: name, reason: "it must be at least 1 (it is \(value))")
        }
        let atLeastZero: [(String, Int?)] = [
            ("maximumPreviewResults", maximumPreviewResults),
            ("maximumPreviewResultsPerDocument", maximumPreviewResultsPerDocument),
            ("previewCharactersBefore", previewCharactersBefore), ("previewLength", previewLength),
        ]
        for case (let name, let value?) in atLeastZero where value < 0 {
            throw SearchError.invalidOption(name: name, reason: "it must be 0 or more (it is \(value))")
        }
    }
}
