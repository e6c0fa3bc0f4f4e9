/// Where OCR stands for one document: the pages that qualify, those recognised so far and those
/// that failed (with why). `SearchLibrary.ocrStatus(of:)`.
public struct OCRStatus: Sendable, Equatable, Codable {
    /// A page whose recognition failed; the rest of the document is indexed.
    public struct PageFailure: Sendable, Equatable, Codable {
        /// The page, from 0.
        public var pageIndex: Int
        /// Why (`timedOut: …`, `helperCrashed: …`, …).
        public var reason: String
    }

    /// The languages of the document's last indexing.
    public var languages: [String]
    /// The pages that qualify for OCR (no usable text layer, an image), ascending.
    public var candidatePages: [Int]
    /// The pages recognised so far, ascending.
    public var recognizedPages: [Int]
    /// The pages that failed.
    public var failures: [PageFailure]

    /// Pages not recognised yet (queued or running).
    public var pendingCount: Int { candidatePages.count - recognizedPages.count - failures.count }
}
