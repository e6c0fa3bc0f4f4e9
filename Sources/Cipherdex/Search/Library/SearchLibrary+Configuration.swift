import Foundation

extension SearchLibrary {
    /// How documents are turned into text.
    public struct Configuration: Sendable {
        /// Where PDFs are parsed.
        public enum PDFExtraction: Sendable, Equatable {
            /// In helper processes (`PDFExtractionHelper`) with these limits per document (the
            /// default: a hostile PDF cannot crash, hang or balloon the calling process). Helpers
            /// are reused from a pool the library owns (see `IsolatedExtractorPool`).
            case isolated(IsolatedPDFExtractor.Limits)
            /// In this process: for trusted input only (no time or memory limit).
            case inProcess
        }

        /// Where PDFs are parsed (default: isolated, 30 s and 1 GiB per document).
        public var pdfExtraction: PDFExtraction = .isolated(IsolatedPDFExtractor.Limits())
        /// Extractors for further formats, by lower-cased file extension (they win over the
        /// built-in ones).
        public var extractors: [String: any TextExtractor] = [:]
        /// Asked for the password of a password-protected document, by UID; nil leaves it locked.
        public var passwordProvider: (@Sendable (String) -> String?)?
        /// Documents extracted at once (default: one per core, plus one). A worker also waits,
        /// for its PDF helper's answer and for the disk when it commits the index; the extra one
        /// keeps the cores busy meanwhile (BENCHMARKS.md, "Indexing without statement
        /// journals"). OCR recognises at most one page per core at once, and never more than
        /// `workerCount` (`ocrPageLimit`).
        public var workerCount = ProcessInfo.processInfo.activeProcessorCount + 1

        /// Pages recognised at once: one per core, at most `workerCount` (Tesseract's pages are
        /// all CPU and up to 1.5 GiB each, so a page more than the cores gains nothing).
        var ocrPageLimit: Int { max(1, min(workerCount, ProcessInfo.processInfo.activeProcessorCount)) }
        /// Whether scanned pages are recognised (OCR) while indexing PDFs.
        public enum OCR: Sendable, Equatable {
            /// No OCR (the default): a page without a text layer is indexed empty.
            case disabled
            /// Pages with no usable text layer that hold an image are recognised with Tesseract
            /// in `languages` (codes such as `eng`, `fra`; each needs `tesseract-ocr-LANG`), in
            /// helper processes, after the documents with text layers.
            case enabled(languages: [String])

            /// The languages, or nil when OCR is off.
            public var languages: [String]? {
                if case .enabled(let languages) = self { return languages }
                return nil
            }
        }

        /// OCR of scanned pages (default off: it costs seconds per page, see README).
        public var ocr: OCR = .disabled
        /// How pages are recognised when `ocr` is enabled: resolution, which pages qualify, the
        /// per-page limits (its `languages` are replaced by `ocr`'s).
        public var ocrSettings = OCRSettings()

        /// The largest document indexed, in bytes (default 256 MiB). A larger one fails with a
        /// reason at once, without being read: a document is held in memory once while it is
        /// hashed and extracted, so this bounds the memory indexing needs.
        public var maximumDocumentSize = 256 << 20

        /// The default configuration.
        public init() {}
    }
}
