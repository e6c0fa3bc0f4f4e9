import CipherdexPDFWriter
import Foundation
import XCTest

@testable import CipherdexEvaluation

/// Which files have a ground truth: `pdftotext`'s pages.
final class TruthCorpusTests: XCTestCase {
    /// A PDF whose page tree claims more pages than the file has objects: `pdftotext` prints no
    /// page (exit 0 or 99), so the file has no truth rather than a truth of no page, and is not
    /// counted as a file the store failed to index.
    func testAFileWithoutAPageHasNoTruth() throws {
        guard TruthCorpus.pdftotextAvailable else { throw XCTSkip("pdftotext is not installed") }
        let path = try Self.write([
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 2000000000 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        switch TruthCorpus.pdftotext(path, timeout: 20) {
        case .success(let pages): XCTFail("a truth of \(pages.count) pages")
        case .failure(let error): XCTAssertEqual(error.reason, "pdftotext found no page")
        }
    }

    /// Text a page draws outside its crop box (a printer's note above a trimmed page) is in no
    /// reader's view, and the store does not index it: the truth leaves it out too, on the pages
    /// whose crop box is smaller, and keeps every other page whole.
    func testTextOutsideTheCropBoxIsNotTruth() throws {
        guard TruthCorpus.pdftotextAvailable else { throw XCTSkip("pdftotext is not installed") }
        let stream = "BT /F1 12 Tf 72 900 Td (printernote) Tj ET BT /F1 12 Tf 72 700 Td (visibleword) Tj ET"
        let font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
        let page = { (crop: String) in
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 1008] \(crop)/Contents 6 0 R /Resources << /Font << /F1 7 0 R >> >> >>"
        }
        let path = try Self.write([
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>",
            page("/CropBox [0 0 612 792] "), page(""), page("/CropBox [0 0 612 792] /Rotate 90 "),
            "<< /Length \(stream.utf8.count) >>\nstream\n\(stream)\nendstream", font,
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pages = try TruthCorpus.pdftotext(path, timeout: 20).get()
        XCTAssertEqual(pages.count, 3)
        XCTAssertTrue(pages[0].contains("visibleword"), pages[0])
        XCTAssertFalse(pages[0].contains("printernote"), pages[0])
        // No crop box; a rotated page (its area would be in rotated coordinates) stays whole.
        XCTAssertTrue(pages[1].contains("printernote") && pages[1].contains("visibleword"), pages[1])
        XCTAssertTrue(pages[2].contains("visibleword"), pages[2])
    }

    /// `pdfinfo -box` output to each page's boxes, and the area `pdftotext -x -y -W -H` takes.
    func testPageBoxesAndTheirArea() {
        let boxes = TruthCorpus.pageBoxes(
            """
            Page    1 rot:   0
            Page    1 MediaBox:      0.00     0.00   612.00  1008.00
            Page    1 CropBox:      61.20    28.80   550.80   763.20
            Page    2 rot:  90
            Page    2 MediaBox:      0.00     0.00   612.00   792.00
            Page    2 CropBox:      10.00    10.00   600.00   780.00
            Page    3 MediaBox:      0.00     0.00   612.00   792.00
            Page    3 CropBox:       0.00     0.00   612.00   792.00
            """)
        XCTAssertEqual(boxes[1]?.area, [61, 244, 490, 736])
        XCTAssertNil(boxes[2]?.area)
        XCTAssertNil(boxes[3]?.area)
    }

    /// A PDF of `objects` (the first the catalog) with a correct cross-reference table, in a
    /// temporary file.
    private static func write(_ objects: [String]) throws -> String {
        let path = NSTemporaryDirectory() + "cipherdex-truth-\(UUID().uuidString.prefix(8)).pdf"
        try Data(makeHandWrittenPDF(objects: objects)).write(to: URL(fileURLWithPath: path))
        return path
    }
}
