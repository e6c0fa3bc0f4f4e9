import CipherdexPDFWriter
import Foundation
import XCTest

@testable import CipherdexExtraction

/// Page text in reading order from poppler-cpp (what `pdftotext` prints), where poppler-glib's
/// page text drops right-to-left lines.
final class ReadingOrderTextTests: XCTestCase {
    /// The four Hebrew lines of pdfjs__issue11656.pdf page 1 (pdftotext prints all four; glib's
    /// page text has only the fourth).
    static let hebrewLines = [
        "שלום עולם מה שלום כולם", "אני יורד מן החוטים", "כמו כל הילדים", "לחיוב פעולות אלה לפי סעיף",
    ]

    func testAllFourHebrewLinesOfIssue11656() throws {
        let pdf = try ExtractionTestSupport.corpusFile("pdfjs__issue11656.pdf")
        for extractor in [PDFTextExtractor() as TextExtractor, IsolatedPDFExtractor()] {
            let document = try extractor.extract(data: pdf, fileExtension: "pdf", password: nil)
            XCTAssertEqual(document.pages.count, 1)
            let text = document.pages.first?.text ?? ""
            for line in Self.hebrewLines {
                XCTAssertTrue(text.contains(line), "\(type(of: extractor)) lacks \(line): \(text)")
            }
        }
        // glib's own text, the fallback, still lacks the first line (the reason for poppler-cpp).
        let glib = try PDFTextExtractor(readingOrderText: false).extract(data: pdf, password: nil)
        XCTAssertFalse(glib.pages[0].text.contains(Self.hebrewLines[0]))
    }

    /// Passwords reach poppler-cpp only once glib accepted them; wrong ones are `.locked` (and
    /// poppler-cpp, asked directly, says so instead of crashing).
    func testEncryptedCorpusFilesWithRightAndWrongPasswords() throws {
        for name in [
            "pdfminer__encryption__aes-128.pdf", "pdfminer__encryption__rc4-40.pdf",
            "pdfminer__encryption__rc4-128.pdf",
        ] {
            let pdf = try ExtractionTestSupport.corpusFile(name)
            for password in [nil, "", "wrong"] as [String?] {
                XCTAssertThrowsError(try PDFTextExtractor().extract(data: pdf, password: password), name) {
                    XCTAssertEqual($0 as? ExtractionError, .locked, name)
                }
                XCTAssertEqual(ReadingOrderText.pageTexts(of: pdf, password: password), .failure(.locked), name)
            }
            let document = try PDFTextExtractor().extract(data: pdf, password: "foo")
            let direct = try ReadingOrderText.pageTexts(of: pdf, password: "foo").get()
            XCTAssertEqual(document.pages.map(\.text), direct, name)
            XCTAssertTrue(document.pages.contains { !ExtractionTestSupport.normalized($0.text).isEmpty }, name)
        }
        // Owner password only: opens without one; a wrong one is refused by both.
        let ownerOnly = try ExtractionTestSupport.corpusFile("qpdf__encrypted-positive-P.pdf")
        XCTAssertEqual(try ReadingOrderText.pageTexts(of: ownerOnly, password: nil).get().count, 1)
        XCTAssertEqual(ReadingOrderText.pageTexts(of: ownerOnly, password: "wrong"), .failure(.locked))
    }

    /// poppler-cpp's `page::text()` stops at a U+0000, which poppler emits for some glyphs
    /// (pdfjs__issue19971.pdf page 6, between Arabic letters, as pdftotext prints it too): the
    /// Arabic and the whole Japanese paragraph after it were lost. The page is read again in bands
    /// between its lines, so it has them all, and no U+0000.
    func testPageTextGoesOnPastANullCharacter() throws {
        let pdf = try ExtractionTestSupport.corpusFile("pdfjs__issue19971.pdf")
        let texts = try ReadingOrderText.pageTexts(of: pdf, password: nil).get()
        XCTAssertGreaterThan(texts.count, 5)
        let page = texts[5]
        for expected in [
            "これは追加の長い段落です。", "と機会へのより深い理解を得ることができます。", "الجغراف", "والتحد",
            "Este es un párrafo adicional más largo.",
        ] {
            XCTAssertTrue(page.contains(expected), "page 6 lacks \(expected)")
        }
        XCTAssertFalse(page.unicodeScalars.contains("\u{0}"))
        XCTAssertTrue(page.hasSuffix("\u{0C}"))
        // Every page poppler finishes ends with a form feed; the bands keep that.
        for (index, text) in texts.enumerated() where !text.isEmpty {
            XCTAssertTrue(text.hasSuffix("\u{0C}"), "page \(index + 1)")
        }
    }

    /// poppler's reading-order text drops a hyphen that ends a line another line follows, joining
    /// the two lines' words (`log-⏎likelihood` → `loglikelihood`): the hyphen and the line break
    /// are kept, as the reader sees them (the tokenizer joins the word, revision 6).
    func testAHyphenAtALineEndIsKept() throws {
        let lines = [
            "the negative log-", "likelihood of a com-", "puter model is well", "known - and a dash-",
            "ends here at last.",
        ]
        let pdf = makePDF(pages: [lines.joined(separator: "\n")], title: nil)
        let text = try ReadingOrderText.pageTexts(of: pdf, password: nil).get()[0]
        XCTAssertEqual(text, lines.joined(separator: "\n") + "\n\n\u{0C}")
    }

    func testBytesThatAreNotAPDF() {
        XCTAssertEqual(ReadingOrderText.pageTexts(of: [], password: nil), .failure(.failed))
        XCTAssertEqual(ReadingOrderText.pageTexts(of: Array("hello".utf8), password: nil), .failure(.damaged))
    }

    /// poppler-cpp counts the same pages as glib (so page text comes from poppler-cpp), on
    /// generated and real multi-page files; an empty document still has its one page.
    func testPageCountsMatchGlib() throws {
        let generated = makePDF(pages: (0..<12).map { "Page \($0) body text" }, title: "twelve")
        XCTAssertEqual(try ReadingOrderText.pageTexts(of: generated, password: nil).get().count, 12)
        XCTAssertEqual(try PDFTextExtractor().extract(data: generated, password: nil).pages.count, 12)
        let names = [
            "pdfjs__tracemonkey.pdf", "pdfjs__issue19971.pdf", "qpdf__V4-aes.pdf",
            "pdfminer__encryption__encrypted_doc_no_id.pdf",
        ]
        for name in names {
            let pdf = try ExtractionTestSupport.corpusFile(name)
            let glib = try PDFTextExtractor(readingOrderText: false).extract(data: pdf, password: nil)
            let cpp = try ReadingOrderText.pageTexts(of: pdf, password: nil).get()
            XCTAssertEqual(cpp.count, glib.pages.count, name)
            XCTAssertEqual(try PDFTextExtractor().extract(data: pdf, password: nil).pages.map(\.text), cpp, name)
        }
    }
}
