/// How scanned pages are recognised (OCR, in the extraction helper with Tesseract): the
/// languages, the resolution pages are rendered at, which pages qualify, and the limits of one
/// page.
///
/// A page qualifies when its text layer has fewer than `minimumTextCharacters` characters that
/// are not white space and it holds at least one image (a scan); a page with a usable text layer
/// is never recognised.
public struct OCRSettings: Codable, Sendable, Hashable {
    /// Tesseract language codes (`eng`, `fra`, `chi_sim`…), tried together; each needs its
    /// language data (`tesseract-ocr-LANG`, see `OCRLanguageData`).
    public var languages: [String]
    /// The resolution pages are rendered at for recognition, in dots per inch (default 300).
    /// Lowered for a page so large that its image would exceed `maximumPixels`.
    public var dpi: Int
    /// A page whose text layer has fewer non-white-space characters than this, and which holds
    /// an image, is recognised (default 16).
    public var minimumTextCharacters: Int
    /// Wall-clock seconds one page may take in the helper (rendering and recognition); past
    /// them the page fails with `timedOut` and the rest of the document is indexed (default 120).
    public var pageWallClockSeconds: Double
    /// CPU seconds one page may take in the helper (RLIMIT_CPU; default 120).
    public var pageCPUSeconds: Int
    /// The largest rendered page image, in pixels (default 40 million: A4 at 300 dpi is 8.7
    /// million); a larger page is rendered at a lower resolution.
    public var maximumPixels: Int

    /// Creates settings; the defaults are English, 300 dpi, 16 characters, 120 s per page.
    public init(
        languages: [String] = ["eng"], dpi: Int = 300, minimumTextCharacters: Int = 16,
        pageWallClockSeconds: Double = 120, pageCPUSeconds: Int = 120, maximumPixels: Int = 40_000_000
    ) {
        self.languages = languages
        self.dpi = min(max(dpi, 72), 1200)
        self.minimumTextCharacters = max(0, minimumTextCharacters)
        self.pageWallClockSeconds = max(pageWallClockSeconds, 1)
        self.pageCPUSeconds = max(pageCPUSeconds, 1)
        self.maximumPixels = max(maximumPixels, 1_000_000)
    }

    /// The helper limits of one page's request: `pageWallClockSeconds`, `pageCPUSeconds`, and
    /// `memoryBytes` of address space (default 1.5 GiB: Tesseract's models and a 300 dpi page).
    public func pageLimits(memoryBytes: Int = 3 << 29) -> IsolatedPDFExtractor.Limits {
        IsolatedPDFExtractor.Limits(
            wallClockSeconds: pageWallClockSeconds, cpuSeconds: pageCPUSeconds, memoryBytes: memoryBytes)
    }

    /// The languages as Tesseract takes them: `eng+fra`.
    public var languageString: String { languages.joined(separator: "+") }
}
