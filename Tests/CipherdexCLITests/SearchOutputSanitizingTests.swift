import XCTest

@testable import CipherdexCLI

/// `SearchCLI.sanitized`, which makes document text safe for a terminal, checks bytes and code
/// point ranges instead of looking up each scalar's properties: it must replace exactly what the
/// lookup did (every control character, U+2028 and U+2029 by a space; every bidirectional
/// embedding, override and isolate by a zero-width space), one scalar for one.
final class SearchOutputSanitizingTests: XCTestCase {
    private static func byCategory(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    if isBidiFormatting(scalar) { return "\u{200B}" }
                    return scalar.properties.generalCategory == .control || scalar == "\u{2028}"
                        || scalar == "\u{2029}" ? " " : scalar
                }))
    }

    /// The Unicode property Bidi_Control but the marks (U+061C, U+200E, U+200F), which only set
    /// a direction: the embeddings, overrides and isolates.
    private static func isBidiFormatting(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isBidiControl && ![0x061C, 0x200E, 0x200F].contains(scalar.value)
    }

    func testEveryScalarIsABidiControlExactlyWhenItsClassIsExplicitFormatting() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            XCTAssertEqual(SearchCLI.isBidiControl(scalar), Self.isBidiFormatting(scalar), String(value, radix: 16))
        }
    }

    /// A right-to-left override in a file name or a page reaches the terminal as nothing it obeys.
    func testOverridesNeverReachTheTerminal() {
        let name = "invoice\u{202E}fdp.exe"
        XCTAssertEqual(SearchCLI.sanitized(name), "invoice\u{200B}fdp.exe")
        XCTAssertEqual(SearchCLI.singleLine("a\u{2066}b\u{2069}c"), "a\u{200B}b\u{200B}c")
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
        for value: UInt32 in [
            0x00, 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9F, 0xA0, 0xAD, 0x2028, 0x2029, 0x2027, 0x202A, 0x202E, 0x202F,
            0x2065, 0x2066, 0x2069, 0x206A, 0x200E,
        ] {
            let scalar = String(Unicode.Scalar(value)!)
            samples += ["a" + scalar + "b", scalar, "é" + scalar + "中", scalar + scalar + "\u{1B}[31m"]
        }
        for sample in samples {
            let sanitized = SearchCLI.sanitized(sample)
            XCTAssertEqual(sanitized, Self.byCategory(sample), sample.debugDescription)
            XCTAssertEqual(sanitized.utf16.count, sample.utf16.count, "UTF-16 offsets stay valid")
        }
    }

    /// `SearchCommand.highlighted` slices the text at the ranges' string indices: the same output
    /// as marking the UTF-16 code units (its fallback, which was the only path before) for random
    /// text and ranges, overlapping, empty, out of bounds or cutting a surrogate pair.
    func testHighlightingMarksWhatTheUTF16PathMarks() {
        var generator = SeededGenerator(seed: 12)
        let pieces = ["a", "dose ", "é", "e\u{301}", "中文", "🙂", "👩‍👩‍👧", "\u{1B}", "\t", " ", "عربي"]
        for round in 0..<2_000 {
            let text = (0..<generator.below(30)).map { _ in pieces[generator.below(pieces.count)] }.joined()
            let length = text.utf16.count
            let ranges = (0..<generator.below(5)).map { _ -> [Int] in
                let start = generator.below(length + 3) - 1
                return round % 50 == 0 ? [start] : [start, start + generator.below(8)]
            }
            let aligned = ranges.allSatisfy { range in
                range.allSatisfy { bound in
                    bound <= 0 || bound >= length
                        || String.Index(utf16Offset: bound, in: text).samePosition(in: text.unicodeScalars) != nil
                }
            }
            for terminal in [false, true] {
                let sanitized = SearchCLI.sanitized(text)
                let (open, close) = terminal ? ("\u{1B}[1;7m", "\u{1B}[0m") : ("[", "]")
                let expected = SearchCommand.highlightedUTF16(
                    sanitized, merged: SearchCommand.mergedRanges(ranges, length: length), open: open, close: close)
                XCTAssertEqual(
                    SearchCommand.highlighted(text, ranges: ranges, terminal: terminal), expected,
                    "\(text.debugDescription) \(ranges) aligned: \(aligned)")
            }
        }
    }
}
