import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `PreviewBuilder` directly: line breaks and tabs become spaces without moving any offset.
final class SearchLibraryPreviewBuilderTests: XCTestCase {
    func testLineBreaksAndTabsBecomeSpacesAndOffsetsStay() {
        let body = "Première ligne\r\nzweite\tZeile mit Größe\nthird 日本 line"
        let word = "Größe"
        let start = body.range(of: word)!
        let byteStart = body.utf8.distance(from: body.utf8.startIndex, to: start.lowerBound)
        let byteEnd = body.utf8.distance(from: body.utf8.startIndex, to: start.upperBound)
        let preview = PreviewBuilder(body: body, byteRanges: [byteStart..<byteEnd]).preview(before: 100, length: 200)
        let expected = String(
            String.UnicodeScalarView(body.unicodeScalars.map { $0 == "\n" || $0 == "\r" || $0 == "\t" ? " " : $0 }))
        XCTAssertEqual(preview.text, expected)
        XCTAssertFalse(preview.text.contains(where: { $0 == "\n" || $0 == "\r\n" || $0 == "\t" }))
        let range = preview.matchRanges[0]
        XCTAssertEqual((preview.text as NSString).substring(with: NSRange(location: range[0], length: range[1] - range[0])), word)
        XCTAssertEqual(preview.pageMatchRanges, [range])
    }
}
