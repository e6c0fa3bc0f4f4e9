import XCTest

@testable import CipherdexCLI

/// `SearchCLI.sanitized`, which makes document text safe for a terminal, checks bytes and code
/// point ranges instead of looking up each scalar's general category: it must replace exactly
/// what the lookup did (every control character, U+2028, U+2029), one scalar for one.
final class SearchOutputSanitizingTests: XCTestCase {
    private static func byCategory(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
                        ? " " : scalar
                }))
    }

    func testEveryScalarIsReplacedExactlyWhenItsCategoryIsControl() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let expected = scalar.properties.generalCategory == .control || value == 0x2028 || value == 0x2029
            XCTAssertEqual(SearchCLI.isReplacedForTerminal(scalar), expected, String(value, radix: 16))
        }
    }

    func testTextComesOutAsTheCategoryLookupMadeIt() {
        var samples = ["", "plain ascii text", "é\u{301} ü 中文 عربي 🙂", "tab\there", "line\nbreak"]
        for value: UInt32 in [0x00, 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9F, 0xA0, 0xAD, 0x2028, 0x2029, 0x2027, 0x202A] {
            let scalar = String(Unicode.Scalar(value)!)
            samples += ["a" + scalar + "b", scalar, "é" + scalar + "中", scalar + scalar + "\u{1B}[31m"]
        }
        for sample in samples {
            let sanitized = SearchCLI.sanitized(sample)
            XCTAssertEqual(sanitized, Self.byCategory(sample), sample.debugDescription)
            XCTAssertEqual(sanitized.utf16.count, sample.utf16.count, "UTF-16 offsets stay valid")
        }
    }
}
