/// How scanned pages are recognised (OCR, in the extraction helper with Tesseract): the
/// languages, the resolution pages are rendered at, which pages qualify, the limits of one page
/// and the budget of one document.
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
    /// Seconds of recognition one document may take in one indexing, its pages' requests added
    /// up (default 1800: about 700 pages at the measured 2.6 s a page). Past them, its pages not
    /// yet recognised fail with `budgetExceeded` without being tried, and the next indexing of
    /// the document goes on with them (pages recognised are kept). A hostile PDF whose every page
    /// costs the per-page limit ran for hours. The pages already running when it is spent (one per
    /// core) finish; 0 recognises no page.
    public var documentSeconds: Double
    /// Pages of one document that may reach the per-page limits (`timedOut`,
    /// `memoryLimitExceeded`) in one indexing before its remaining pages fail with
    /// `budgetExceeded` without being tried (default 3).
    public var pagesAtLimitPerDocument: Int

    /// Creates settings; the defaults are English, 300 dpi, 16 characters, 120 s per page, 1800 s
    /// and 3 pages at the limits per document.
    public init(
        languages: [String] = ["eng"], dpi: Int = 300, minimumTextCharacters: Int = 16,
        pageWallClockSeconds: Double = 120, pageCPUSeconds: Int = 120, maximumPixels: Int = 40_000_000,
        documentSeconds: Double = 1800, pagesAtLimitPerDocument: Int = 3
    ) {
        self.languages = languages
        self.dpi = min(max(dpi, 72), 1200)
        self.minimumTextCharacters = max(0, minimumTextCharacters)
        self.pageWallClockSeconds = max(pageWallClockSeconds, 1)
        self.pageCPUSeconds = max(pageCPUSeconds, 1)
        self.maximumPixels = max(maximumPixels, 1_000_000)
        self.documentSeconds = documentSeconds.isNaN ? 0 : max(documentSeconds, 0)
        self.pagesAtLimitPerDocument = max(pagesAtLimitPerDocument, 1)
    }

    private enum CodingKeys: String, CodingKey {
        case languages, dpi, minimumTextCharacters, pageWallClockSeconds, pageCPUSeconds, maximumPixels
        case documentSeconds, pagesAtLimitPerDocument
    }

    /// Decodes settings; those encoded before the document budget get its defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = OCRSettings()
        self.init(
            languages: try container.decode([String].self, forKey: .languages),
            dpi: try container.decode(Int.self, forKey: .dpi),
            minimumTextCharacters: try container.decode(Int.self, forKey: .minimumTextCharacters),
            pageWallClockSeconds: try container.decode(Double.self, forKey: .pageWallClockSeconds),
            pageCPUSeconds: try container.decode(Int.self, forKey: .pageCPUSeconds),
            maximumPixels: try container.decode(Int.self, forKey: .maximumPixels),
            documentSeconds: try container.decodeIfPresent(Double.self, forKey: .documentSeconds)
                ?? defaults.documentSeconds,
            pagesAtLimitPerDocument: try container.decodeIfPresent(Int.self, forKey: .pagesAtLimitPerDocument)
                ?? defaults.pagesAtLimitPerDocument)
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
