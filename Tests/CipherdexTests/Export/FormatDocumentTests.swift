import Foundation
import XCTest

@testable import Cipherdex

/// FORMAT.md itself: what a reader with the document alone needs must be in it, exactly.
final class FormatDocumentTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The lines of the first fenced block after the line `heading` in FORMAT.md.
    private func fencedBlock(after heading: String) throws -> [Substring] {
        let document = String(
            decoding: try XCTUnwrap(FileManager.default.contents(atPath: Self.repository + "/FORMAT.md")),
            as: UTF8.self)
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try XCTUnwrap(lines.firstIndex { $0 == heading }, "FORMAT.md has no line \(heading)")
        let open = try XCTUnwrap(lines[start...].firstIndex { $0.hasPrefix("```") }, "no fenced block")
        let close = try XCTUnwrap(lines[(open + 1)...].firstIndex { $0 == "```" }, "the block is not closed")
        return Array(lines[(open + 1)..<close])
    }

    /// The first byte where `bytes` and `expected` differ (the shorter one's length when one is
    /// a prefix of the other), nil when they are equal.
    private func firstDifference(_ bytes: [UInt8], _ expected: [UInt8]) -> Int? {
        if bytes == expected { return nil }
        let common = min(bytes.count, expected.count)
        return (0..<common).first { bytes[$0] != expected[$0] } ?? common
    }

    /// Appendix A gives the page text dictionary byte for byte: its lines joined with one space,
    /// then one space at the end (the rule it states), are `tools/page-text-dictionary-v1.txt`.
    func testTheAppendixHoldsThePageTextDictionaryExactly() throws {
        let block = try fencedBlock(after: "## Appendix A. Page text dictionary v1")
        XCTAssertFalse(block.isEmpty)
        for line in block {
            XCTAssertFalse(line.isEmpty || line.hasPrefix(" ") || line.hasSuffix(" ") || line.contains("  "), "\(line)")
        }
        let joined = Array((block.joined(separator: " ") + " ").utf8)
        let file = Array(
            try XCTUnwrap(
                FileManager.default.contents(atPath: Self.repository + "/tools/page-text-dictionary-v1.txt")))
        XCTAssertEqual(joined.count, 8190)
        XCTAssertNil(
            firstDifference(joined, file), "FORMAT.md's appendix A and tools/page-text-dictionary-v1.txt differ at byte"
        )
        XCTAssertNil(
            firstDifference(joined, PageTextDictionary.bytes), "appendix A and PageTextDictionary differ at byte")
    }
}
