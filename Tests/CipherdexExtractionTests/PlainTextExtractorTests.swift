import CipherdexExtraction
import XCTest

/// Plain text and Markdown extraction.
final class PlainTextExtractorTests: XCTestCase {
    /// UTF-8 text is one page; form feeds split pages.
    func testPagesAndUTF8() throws {
        let extractor = PlainTextExtractor()
        let single = try extractor.extract(data: Array("héllo 世界\nline two".utf8), fileExtension: "txt", password: nil)
        XCTAssertEqual(single.pages, [ExtractedPage(index: 0, text: "héllo 世界\nline two")])
        XCTAssertNil(single.title)
        let paged = try extractor.extract(data: Array("one\u{0C}two\u{0C}three".utf8), fileExtension: ".TXT", password: nil)
        XCTAssertEqual(paged.pages.map(\.text), ["one", "two", "three"])
        XCTAssertEqual(paged.pages.map(\.index), [0, 1, 2])
    }

    /// A byte-order mark is dropped; UTF-16 is recognised; invalid UTF-8 falls back to Windows-1252.
    func testEncodings() throws {
        let extractor = PlainTextExtractor()
        XCTAssertEqual(try extractor.extract(data: [0xEF, 0xBB, 0xBF] + Array("bom".utf8), fileExtension: "txt", password: nil).pages[0].text, "bom")
        XCTAssertEqual(try extractor.extract(data: [0xFF, 0xFE, 0x68, 0x00, 0xE9, 0x00], fileExtension: "txt", password: nil).pages[0].text, "hé")
        XCTAssertEqual(try extractor.extract(data: [0xFE, 0xFF, 0x00, 0x68, 0x00, 0xE9], fileExtension: "txt", password: nil).pages[0].text, "hé")
        let latin = try extractor.extract(data: [0x63, 0x61, 0x66, 0xE9, 0x20, 0x80, 0x93, 0x94], fileExtension: "txt", password: nil)
        XCTAssertEqual(latin.pages[0].text, "café €“”")
    }

    /// Markdown takes its title from the first level-one heading; other formats are refused.
    func testMarkdownTitleAndUnsupported() throws {
        let markdown = "Intro\n\n## Not this\n# The Title #\nbody"
        XCTAssertEqual(try PlainTextExtractor().extract(data: Array(markdown.utf8), fileExtension: "md", password: nil).title, "The Title")
        XCTAssertThrowsError(try PlainTextExtractor().extract(data: [], fileExtension: "pdf", password: nil)) {
            XCTAssertEqual($0 as? ExtractionError, .unsupportedFormat("pdf"))
        }
        XCTAssertEqual(try PlainTextExtractor().extract(data: [], fileExtension: "md", password: nil).pages, [ExtractedPage(index: 0, text: "")])
    }
}
