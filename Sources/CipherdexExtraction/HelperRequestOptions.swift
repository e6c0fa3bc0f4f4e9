/// What a helper request asks for beyond the text layer (the request's `O` frame, JSON): which
/// pages would need OCR, or the OCR of one page.
package struct HelperRequestOptions: Codable, Sendable, Equatable {
    /// Flag (`ExtractedPage.needsOCR`) the pages whose text layer has fewer non-white-space
    /// characters than this and that hold an image; nil flags none.
    package var ocrCandidatesBelow: Int?
    /// Recognise this page instead of extracting the document's text layer.
    package var ocrPage: OCRPageRequest?

    /// Creates options.
    package init(ocrCandidatesBelow: Int? = nil, ocrPage: OCRPageRequest? = nil) {
        self.ocrCandidatesBelow = ocrCandidatesBelow
        self.ocrPage = ocrPage
    }
}

/// The OCR of one page: which page, in which languages, at what resolution, under which
/// deadline.
package struct OCRPageRequest: Codable, Sendable, Equatable {
    /// The zero-based page.
    package var pageIndex: Int
    /// Tesseract's language string (`eng+fra`).
    package var languages: String
    /// Render resolution in dots per inch.
    package var dpi: Int
    /// The largest rendered image, in pixels.
    package var maximumPixels: Int
    /// Seconds recognition may take before it is stopped (Tesseract's own deadline, a little
    /// below the request's wall-clock limit so the helper answers with a typed error).
    package var deadlineSeconds: Double

    /// Creates a page request.
    package init(pageIndex: Int, languages: String, dpi: Int, maximumPixels: Int, deadlineSeconds: Double) {
        self.pageIndex = pageIndex
        self.languages = languages
        self.dpi = dpi
        self.maximumPixels = maximumPixels
        self.deadlineSeconds = deadlineSeconds
    }
}
