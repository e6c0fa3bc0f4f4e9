import CipherdexPDFWriter
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Matching stops a preview's length after the first match; the previews must be exactly those
/// cut from every match of the page.
final class SearchLibraryPreviewWindowTests: XCTestCase {
    func testWindowedMatchingGivesTheSamePreviews() throws {
        let corpus = SampleCorpus(documentCount: 6, pagesPerDocument: 5, wordsPerPage: 300)
        var pages = corpus.documents.flatMap(\.pages)
        pages.append("naïve café " + String(repeating: "Zürich résumé 東京都 naïve ", count: 40) + " café")
        pages.append(
            String(repeating: "e\u{301}\u{301}\u{301} ", count: 200) + "otter " + String(repeating: "x ", count: 100)
                + "otter")
        // Characters longer than the first guess of eight bytes (a Devanagari cluster is 12, a
        // run of marks more), and CR LF pairs (one character, two bytes) in ASCII text.
        pages.append(
            "otter " + String(repeating: "क्षि", count: 110) + " otter "
                + String(repeating: "a\u{301}\u{302}\u{303}\u{304}", count: 100) + " otter")
        pages.append(
            "the otter\r\n" + String(repeating: "x\r\n", count: 60) + "the otter "
                + String(repeating: "y\r\n", count: 60) + "otter")
        let queries = [
            "the", "patient", "analysis water", "\"of the\"", "ana*", "court OR witness", "naïve", "東京", "otter",
            "cafe resume",
        ]
        var compared = 0
        for stemming in [false, true] {
            for text in queries {
                let compiled = try SearchQuery.parse(text).compiled(stemming: stemming)
                for options in [SearchOptions(), shortPreview()] {
                    var full = MatchLocator(match: compiled.match, stemming: stemming)
                    var windowed = MatchLocator(match: compiled.match, stemming: stemming)
                    for page in pages {
                        var body = page
                        let (all, window) = body.withUTF8 {
                            (
                                full.byteRanges(in: $0),
                                windowed.byteRanges(in: $0, windowCharacters: options.previewLength)
                            )
                        }
                        guard !all.isEmpty else { continue }
                        let expected = PreviewBuilder(body: page, byteRanges: all)
                            .preview(before: options.previewCharactersBefore, length: options.previewLength)
                        let actual = PreviewBuilder(body: page, byteRanges: window)
                            .preview(before: options.previewCharactersBefore, length: options.previewLength)
                        XCTAssertEqual(actual.text, expected.text, text)
                        XCTAssertEqual(actual.matchRanges, expected.matchRanges, text)
                        XCTAssertEqual(actual.pageMatchRanges, expected.pageMatchRanges, text)
                        XCTAssertLessThanOrEqual(window.count, all.count)
                        compared += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(compared, 200)
    }

    private func shortPreview() -> SearchOptions {
        var options = SearchOptions()
        options.previewCharactersBefore = 3
        options.previewLength = 25
        return options
    }
}
