/// What a search found, ranked by relevance (BM25 from FTS4's matchinfo).
public struct SearchResults: Codable, Sendable, Equatable {
    /// Matching documents by UID, each with its matching page indices (from 0, ascending).
    public var documents: [String: [Int]]
    /// The UIDs ordered by their best page's score.
    public var rankedUIDs: [String]
    /// One entry per matching page or annotation, best first.
    public var previews: [SearchPreview]
}

/// One matching page (or annotation) with its preview.
public struct SearchPreview: Codable, Sendable, Equatable {
    /// The document's UID.
    public var uid: String
    /// The page, counted from 0.
    public var pageIndex: Int
    /// Up to `previewLength` characters of the original text around the first match (empty when
    /// this result has no preview: see `hasPreview`).
    public var preview: String
    /// Whether the preview was cut: false when previews are off, the result is past a preview
    /// cap, or preview work was cancelled (`SearchLibrary.cancelPreviews()`, Task cancellation).
    public var hasPreview: Bool = false
    /// Where the matched words are in `preview`: UTF-16 offsets (`NSRange`-compatible),
    /// `[start, end)`.
    public var matchRanges: [[Int]]
    /// Where the preview's matched words are in the page (or annotation) text: UTF-16 offsets.
    public var pageMatchRanges: [[Int]]
    /// The BM25 score (higher is better).
    public var score: Double
    /// Whether the match is in an annotation's text rather than the page's.
    public var isAnnotation: Bool
    /// Which annotation of the page (from 0), for annotation results.
    public var annotationIndex: Int?
    /// Whether the page's text was recognised from its image (OCR): it may hold misread words.
    public var isOCR: Bool = false
}

extension SearchPreview {
    /// `matchRanges` as ranges of `preview`'s own indices, for highlighting in Swift
    /// (`preview[range]`, `AttributedString`); a range that does not fit `preview` (there is
    /// none unless the value was edited) is left out.
    public var matchedRanges: [Range<String.Index>] {
        let utf16 = preview.utf16
        return matchRanges.compactMap { pair in
            guard pair.count == 2, pair[0] >= 0, pair[0] <= pair[1], pair[1] <= utf16.count,
                let start = utf16.index(utf16.startIndex, offsetBy: pair[0], limitedBy: utf16.endIndex),
                let end = utf16.index(utf16.startIndex, offsetBy: pair[1], limitedBy: utf16.endIndex),
                let lower = start.samePosition(in: preview), let upper = end.samePosition(in: preview)
            else { return nil }
            return lower..<upper
        }
    }
}
