import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `PreviewBuilder` directly: line breaks, tabs, form feeds and vertical tabs become spaces
/// without moving any offset.
final class SearchLibraryPreviewBuilderTests: XCTestCase {
    func testLineBreaksAndTabsBecomeSpacesAndOffsetsStay() {
        let body = "Première ligne\r\nzweite\tZeile mit Größe\nthird 日本 line\u{0B}end\n\n\u{0C}"
        let word = "Größe"
        let start = body.range(of: word)!
        let byteStart = body.utf8.distance(from: body.utf8.startIndex, to: start.lowerBound)
        let byteEnd = body.utf8.distance(from: body.utf8.startIndex, to: start.upperBound)
        let preview = PreviewBuilder(body: body, byteRanges: [byteStart..<byteEnd]).preview(before: 100, length: 200)
        let expected = String(
            String.UnicodeScalarView(
                body.unicodeScalars.map { "\n\r\t\u{0B}\u{0C}".unicodeScalars.contains($0) ? " " : $0 }))
        XCTAssertEqual(preview.text, expected)
        XCTAssertFalse(preview.text.contains(where: { $0 == "\n" || $0 == "\r\n" || $0 == "\t" || $0 == "\u{0C}" }))
        let range = preview.matchRanges[0]
        XCTAssertEqual(
            (preview.text as NSString).substring(with: NSRange(location: range[0], length: range[1] - range[0])), word)
        XCTAssertEqual(preview.pageMatchRanges, [range])
    }

    /// A page's text ends with a form feed (poppler's page break): the ASCII path shows it as a
    /// space too, as the general one does.
    func testTheFormFeedAtAPageEndIsASpaceOnBothPaths() {
        let body = "The log-\nlikelihood is here.\n\n\u{0C}"
        for allowASCII in [true, false] {
            let preview = PreviewBuilder(body: body, byteRanges: [0..<3]).preview(
                before: 10, length: 100, allowASCII: allowASCII)
            XCTAssertEqual(preview.text, "The log- likelihood is here.   ", "allowASCII: \(allowASCII)")
            XCTAssertEqual(preview.matchRanges, [[0, 3]])
        }
    }
}
