import CipherdexExtraction
import CipherdexPDFWriter
import XCTest

/// Generated PDFs come back with their text per page and their title, in-process and isolated.
final class PDFRoundTripTests: XCTestCase {
    /// Pages in several scripts, including CJK (needs a CJK font: fonts-wqy-zenhei).
    static let pages = [
        "The quick brown fox jumps over the lazy dog.",
        "Second page: encrypted searchable documents.\nWith a second line.",
        "Café naïve façade — déjà vu, Straße",
        "東京タワーは日本の電波塔です。",
        "中文搜索引擎测试",
        "한국어 문서 검색 테스트",
    ]

    /// Checks the extracted document against `pages` and the title.
    private func assertRoundTrip(_ document: ExtractedDocument, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(document.title, "Round trip — 試験", file: file, line: line)
        XCTAssertEqual(document.metadata["author"], "Cipherdex Tests", file: file, line: line)
        XCTAssertEqual(document.pages.count, Self.pages.count, file: file, line: line)
        for (page, expected) in zip(document.pages, Self.pages) {
            XCTAssertEqual(
                ExtractionTestSupport.squeezed(page.text), ExtractionTestSupport.squeezed(expected),
                "page \(page.index)", file: file, line: line)
        }
        XCTAssertEqual(ExtractionTestSupport.normalized(document.pages[0].text), Self.pages[0], file: file, line: line)
        XCTAssertEqual(document.pages.map(\.index), Array(0..<Self.pages.count), file: file, line: line)
    }

    /// A generated PDF with Latin, accented and CJK pages.
    private func makeDocument() -> [UInt8] {
        for page in Self.pages where !PDFWriter.canRender(page) {
            XCTFail("No installed font can draw \(page.debugDescription): install fonts-wqy-zenhei (Debian)")
        }
        return PDFWriter.make(
            pages: Self.pages, metadata: PDFMetadata(title: "Round trip — 試験", author: "Cipherdex Tests"))
    }

    /// In-process extraction recovers each page's text, the title and the author.
    func testInProcessRoundTrip() throws {
        let pdf = makeDocument()
        XCTAssertTrue(pdf.starts(with: Array("%PDF-".utf8)))
        assertRoundTrip(try PDFTextExtractor().extract(data: pdf, password: nil))
        assertRoundTrip(try PDFTextExtractor().extract(data: pdf, fileExtension: ".PDF", password: nil))
    }

    /// The isolated helper returns exactly what in-process extraction returns.
    func testIsolatedRoundTripMatchesInProcess() throws {
        let pdf = makeDocument()
        let isolated = try IsolatedPDFExtractor().extract(data: pdf, fileExtension: "pdf", password: nil)
        assertRoundTrip(isolated)
        XCTAssertEqual(isolated, try PDFTextExtractor().extract(data: pdf, password: nil))
    }

    /// The convenience `makePDF(pages:title:)` and a nil title.
    func testConvenienceWriterAndNilTitle() throws {
        let document = try PDFTextExtractor().extract(
            data: makePDF(pages: ["alpha", "beta"], title: nil), password: nil)
        XCTAssertNil(document.title)
        XCTAssertEqual(document.pages.map { ExtractionTestSupport.normalized($0.text) }, ["alpha", "beta"])
        XCTAssertEqual(
            try PDFTextExtractor().extract(data: makePDF(pages: [], title: "t"), password: nil).pages.count, 1)
    }

    /// Long text wraps and shrinks but is all still on its page.
    func testLongPageTextIsKept() throws {
        let words = (0..<600).map { "word\($0)" }
        let document = try PDFTextExtractor().extract(
            data: makePDF(pages: [words.joined(separator: " ")], title: "long"), password: nil)
        XCTAssertEqual(ExtractionTestSupport.normalized(document.pages[0].text), words.joined(separator: " "))
    }

    /// Annotation contents (a text note and free text) are extracted per page.
    func testAnnotationsAreExtracted() throws {
        let pdf = ExtractionTestSupport.annotatedPDF(
            note: "Sticky note about invoices", freeText: "Free text remark", pageText: "Page body")
        for extractor in [PDFTextExtractor() as TextExtractor, IsolatedPDFExtractor()] {
            let document = try extractor.extract(data: pdf, fileExtension: "pdf", password: nil)
            XCTAssertEqual(document.pages.count, 1)
            // Reading-order page text, like pdftotext, includes what annotations draw on the page
            // (the free text's appearance), not the note's hidden contents.
            XCTAssertEqual(ExtractionTestSupport.normalized(document.pages[0].text), "Page body Free text remark")
            XCTAssertEqual(Set(document.pages[0].annotations), ["Sticky note about invoices", "Free text remark"])
        }
    }

    /// Corpus files with real annotations and encryption behave as expected.
    func testCorpusAnnotationsAndPasswords() throws {
        let annotated = try ExtractionTestSupport.corpusFile("pdf20ex__PDF_2.0_UTF-8_string_and_annotation.pdf")
        let document = try PDFTextExtractor().extract(data: annotated, password: nil)
        XCTAssertFalse(document.pages.flatMap(\.annotations).isEmpty)

        let locked = try ExtractionTestSupport.corpusFile("popplertest__unittestcases__PasswordEncrypted.pdf")
        XCTAssertThrowsError(try PDFTextExtractor().extract(data: locked, password: nil)) {
            XCTAssertEqual($0 as? ExtractionError, .locked)
        }
        XCTAssertThrowsError(try IsolatedPDFExtractor().extract(data: locked, password: "wrong password")) {
            XCTAssertEqual($0 as? ExtractionError, .locked)
        }
        let aes = try ExtractionTestSupport.corpusFile("pdfminer__encryption__aes-128.pdf")
        XCTAssertThrowsError(try PDFTextExtractor().extract(data: aes, password: "not it"))
        let opened = try IsolatedPDFExtractor().extract(data: aes, password: "foo")
        XCTAssertFalse(opened.pages.isEmpty)
    }
}
