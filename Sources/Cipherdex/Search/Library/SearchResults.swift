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
    /// Up to `previewLength` characters of the original text around the first match, its line
    /// breaks, tabs and form feeds shown as spaces (empty when this result has no preview: see
    /// `hasPreview`).
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
    /// (`preview[range]`, `AttributedString`): each widened to whole characters (a match that
    /// starts or ends inside one, as the pairs of a Thai or CJK word can, takes all of it), and
    /// overlapping or touching ones merged, in order. A range that does not fit `preview` (there
    /// is none unless the value was edited) is left out.
    public var matchedRanges: [Range<String.Index>] {
        let length = preview.utf16.count
        var widened: [Range<String.Index>] = []
        for pair in matchRanges {
            guard pair.count == 2, pair[0] >= 0, pair[0] <= pair[1], pair[1] <= length else { continue }
            let lower = String.Index(utf16Offset: pair[0], in: preview)
            let upper = String.Index(utf16Offset: pair[1], in: preview)
            // Down to the start of the character holding `lower`, up to the end of the one
            // holding the last unit before `upper`.
            let low = Self.characterStart(containing: lower, in: preview)
            let high = upper == lower ? low : Self.characterEnd(containing: upper, in: preview)
            widened.append(low..<max(low, high))
        }
        widened.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<String.Index>] = []
        for range in widened {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// The start of the character of `text` that holds the position `index` (itself when a
    /// character starts there).
    private static func characterStart(containing index: String.Index, in text: String) -> String.Index {
        var start = text.startIndex
        while start < text.endIndex {
            let next = text.index(after: start)
            if next > index { return start }
            start = next
        }
        return text.endIndex
    }

    /// The end of the character of `text` that holds the unit just before `index` (`index`
    /// itself when a character ends there).
    private static func characterEnd(containing index: String.Index, in text: String) -> String.Index {
        var end = text.startIndex
        while end < index && end < text.endIndex { end = text.index(after: end) }
        return end
    }
}
