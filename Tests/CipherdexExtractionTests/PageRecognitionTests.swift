import CipherdexPDFWriter
import Foundation
import XCTest

@testable import CipherdexExtraction

/// OCR in the extraction helper: which pages qualify, the recognised text of a scanned page, the
/// per-page deadline, and a missing language.
final class PageRecognitionTests: XCTestCase {
    /// The text of the scanned test page.
    static let prose = """
        It is a truth universally acknowledged, that a single man in possession of a good fortune, \
        must be in want of a wife. However little known the feelings or views of such a man may be \
        on his first entering a neighbourhood, this truth is so well fixed in the minds of the \
        surrounding families, that he is considered the rightful property of some one or other of \
        their daughters.
        """

    /// An extractor for OCR requests, with the default page limits.
    private func ocrExtractor(_ settings: OCRSettings = OCRSettings()) -> IsolatedPDFExtractor {
        IsolatedPDFExtractor(pool: IsolatedExtractorPool(limits: settings.pageLimits()))
    }

    /// A scanned page qualifies for OCR; a page with a text layer, or a blank one, does not.
    func testOnlyImageOnlyPagesAreCandidates() throws {
        let scanned = ScannedPDFWriter.make(pages: [Self.prose], dpi: 100)
        let extractor = IsolatedPDFExtractor()
        let scan = try extractor.extract(data: scanned, password: nil, ocrCandidatesBelow: 16)
        XCTAssertEqual(scan.pages.map(\.needsOCR), [true])
        XCTAssertEqual(scan.pages.first?.text.trimmingCharacters(in: .whitespacesAndNewlines), "")
        let text = try extractor.extract(
            data: makePDF(pages: [Self.prose, ""], title: nil), password: nil, ocrCandidatesBelow: 16)
        XCTAssertEqual(text.pages.map(\.needsOCR), [false, false])
        // Without the option nothing is flagged.
        XCTAssertEqual(try extractor.extract(data: scanned, password: nil).pages.map(\.needsOCR), [false])
    }

    /// The scanned page's words come back from Tesseract, flagged `isOCR`.
    func testScannedPageIsRecognized() throws {
        let scanned = ScannedPDFWriter.make(pages: [Self.prose])
        let page = try ocrExtractor().recognizePage(0, of: scanned, password: nil, settings: OCRSettings())
        XCTAssertTrue(page.isOCR)
        XCTAssertEqual(page.index, 0)
        let found = Set(page.text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init))
        for word in ["universally", "acknowledged", "possession", "neighbourhood", "daughters"] {
            XCTAssertTrue(found.contains(word), "\(word) not in \(page.text)")
        }
    }

    /// A page past its wall-clock limit fails with `timedOut`.
    /// A faded scan (ink at gray 200 on white) is recognised: its contrast is stretched before
    /// Sauvola's thresholding, which made the light ink white and gave no text (OCR audit 3).
    func testAFadedScanIsRecognized() throws {
        let faded = ScannedPDFWriter.make(
            pages: [Self.prose], degradation: .init(skewDegrees: 0, blurPasses: 0, noise: 0, ink: 200.0 / 255))
        let page = try ocrExtractor().recognizePage(0, of: faded, password: nil, settings: OCRSettings())
        XCTAssertTrue(page.text.lowercased().contains("neighbourhood"), page.text)
    }

    /// The stretch leaves a page of ordinary contrast, and a blank one, as they are.
    func testContrastIsStretchedOnlyOnLowContrastPages() {
        var faded = PageRecognizer.GrayImage(
            width: 100, height: 10, dpi: 300,
            pixels: [UInt8](repeating: 255, count: 990) + [UInt8](repeating: 200, count: 10))
        faded.stretchContrast()
        XCTAssertEqual(faded.pixels.min(), 0)
        XCTAssertEqual(faded.pixels.max(), 255)
        for pixels in [
            [UInt8](repeating: 255, count: 990) + [UInt8](repeating: 20, count: 10),
            [UInt8](repeating: 255, count: 995) + [UInt8](repeating: 250, count: 5),
        ] {
            var image = PageRecognizer.GrayImage(width: 100, height: 10, dpi: 300, pixels: pixels)
            image.stretchContrast()
            XCTAssertEqual(image.pixels, pixels)
        }
    }

    func testSlowPageTimesOut() throws {
        let dense = String(repeating: Self.prose + "\n", count: 8)
        let scanned = ScannedPDFWriter.make(pages: [dense], degradation: .none)
        let settings = OCRSettings(pageWallClockSeconds: 1)
        XCTAssertThrowsError(
            try ocrExtractor(settings).recognizePage(0, of: scanned, password: nil, settings: settings)
        ) {
            XCTAssertEqual(($0 as? ExtractionError)?.name, "timedOut", "\($0)")
            // The limit said is the page's, as set (it said Tesseract's earlier deadline, 0.9 s,
            // and 115.0 s for the default 120: OCR audit 7).
            XCTAssertEqual(
                ($0 as? ExtractionError)?.errorDescription,
                "text extraction took longer than 1 s (of elapsed or processor time) and was stopped")
        }
    }

    /// A page that does not exist is a typed error, not a crash.
    func testMissingPageIsDamaged() throws {
        let scanned = ScannedPDFWriter.make(pages: ["one"], dpi: 72)
        XCTAssertThrowsError(try ocrExtractor().recognizePage(3, of: scanned, password: nil, settings: OCRSettings())) {
            XCTAssertEqual(($0 as? ExtractionError)?.name, "damaged")
        }
    }

    /// Language data: installed, missing (with the package to install), malformed codes.
    func testLanguageData() {
        XCTAssertTrue(OCRLanguageData.isInstalled("eng"))
        XCTAssertNil(OCRLanguageData.firstMissing(["eng"]))
        XCTAssertEqual(OCRLanguageData.firstMissing(["eng", "xyz"]), "xyz")
        XCTAssertEqual(OCRLanguageData.package(for: "fra"), "tesseract-ocr-fra")
        XCTAssertEqual(OCRLanguageData.package(for: "chi_sim"), "tesseract-ocr-chi-sim")
        XCTAssertFalse(OCRLanguageData.isWellFormed("../eng"))
        XCTAssertFalse(OCRLanguageData.isWellFormed(""))
    }
}
