import CipherdexPDFWriter
import Foundation
import XCTest

@testable import CipherdexExtraction

/// A document whose reading-order text does not finish in time gets glib's page text instead,
/// still within the request's limit.
final class ReadingOrderFallbackTests: XCTestCase {
    /// qpdf__shared-unnamed-field.pdf is a form-field tree in which every field lists its one
    /// child twice: building it (poppler's page display and annotations do) takes for ever, and the
    /// helper used to time out. Now the helper gives up on reading-order text at half the budget,
    /// answers with glib's page text, and exits; the pool goes on with a fresh helper.
    func testFormFieldTreeBombGetsGlibTextWithinTheLimit() throws {
        let pdf = try ExtractionTestSupport.corpusFile("qpdf__shared-unnamed-field.pdf")
        let limits = IsolatedPDFExtractor.Limits(wallClockSeconds: 6, cpuSeconds: 6)
        let pool = IsolatedExtractorPool(limits: limits)
        defer { pool.close() }
        let extractor = IsolatedPDFExtractor(pool: pool)
        let start = ContinuousClock.now
        let document = try extractor.extract(data: pdf, password: nil)
        let elapsed = (ContinuousClock.now - start) / .seconds(1)
        XCTAssertEqual(document.pages.count, 1)
        XCTAssertEqual(document.pages.first?.annotations, [])
        XCTAssertGreaterThan(elapsed, 2.5, "the reading-order text gets half of the 6 s")
        XCTAssertLessThan(elapsed, 6, "within the request's wall-clock limit")
        // The helper exited after that answer; the next request gets a working one.
        let next = try extractor.extract(data: makePDF(pages: ["after the bomb"], title: nil), password: nil)
        XCTAssertEqual(ExtractionTestSupport.normalized(next.pages.first?.text ?? ""), "after the bomb")
        XCTAssertEqual(pool.statistics.helpersStarted, 2)
    }

    /// In process, past the time limit the document gets glib's page text, without annotations
    /// (they build the same form fields); within it, the reading-order text.
    func testInProcessFallbackIsGlibTextWithoutAnnotations() throws {
        let pdf = try ExtractionTestSupport.corpusFile("pdfjs__issue11656.pdf")
        let glib = try PDFTextExtractor(readingOrderText: false).extract(data: pdf, password: nil)
        let readingOrder = try PDFTextExtractor().extract(data: pdf, password: nil)
        XCTAssertNotEqual(glib.pages.map(\.text), readingOrder.pages.map(\.text))
        let hurried = try PDFTextExtractor(readingOrderTimeLimit: 0).extractNotingStall(data: pdf, password: nil)
        if hurried.readingOrderStalled {
            XCTAssertEqual(hurried.document.pages.map(\.text), glib.pages.map(\.text))
            XCTAssertTrue(hurried.document.pages.allSatisfy(\.annotations.isEmpty))
        } else {
            XCTAssertEqual(hurried.document, readingOrder)
        }
        let patient = try PDFTextExtractor(readingOrderTimeLimit: 30).extractNotingStall(data: pdf, password: nil)
        XCTAssertFalse(patient.readingOrderStalled)
        XCTAssertEqual(patient.document, readingOrder)
    }
}
