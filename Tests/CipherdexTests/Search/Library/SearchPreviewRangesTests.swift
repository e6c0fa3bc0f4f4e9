import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `SearchPreview.matchedRanges`: the UTF-16 `matchRanges` as ranges of the preview's indices.
final class SearchPreviewRangesTests: XCTestCase {
    private func preview(_ text: String, _ ranges: [[Int]]) -> SearchPreview {
        SearchPreview(
            uid: "u", pageIndex: 0, preview: text, matchRanges: ranges, pageMatchRanges: ranges, score: 1,
            isAnnotation: false)
    }

    func testRangesPastEmojiAndCombiningMarksSelectTheWords() {
        let text = "😀 cafe\u{301} Größe 日本語 end"
        func utf16Range(of word: String) -> [Int] {
            let range = NSRange(text.range(of: word)!, in: text)
            return [range.location, range.location + range.length]
        }
        let value = preview(text, [utf16Range(of: "cafe\u{301}"), utf16Range(of: "Größe"), utf16Range(of: "日本語")])
        XCTAssertEqual(value.matchedRanges.map { String(text[$0]) }, ["cafe\u{301}", "Größe", "日本語"])
    }

    func testRangesThatDoNotFitArePassedOver() {
        let text = "😀 word"
        // Past the end, reversed, not a pair, negative.
        let value = preview(text, [[3, 7], [3, 99], [5, 4], [1], [-1, 2]])
        XCTAssertEqual(value.matchedRanges.map { String(text[$0]) }, ["word"])
    }

    /// A match that starts or ends inside a character (the pairs of a Thai word, whose vowel and
    /// tone marks are code points of their own; half of an emoji's surrogate pair) takes the
    /// whole character; overlapping ranges become one.
    func testRangesInsideCharactersAreWidenedAndMerged() {
        let thai = "ผมชอบกินข้าวผัด"
        let word = NSRange(thai.range(of: "กิน")!, in: thai)
        // The pairs "กิ" and "ิน" (the second starts on the vowel mark).
        let pairs = [[word.location, word.location + 2], [word.location + 1, word.location + 3]]
        XCTAssertEqual(preview(thai, pairs).matchedRanges.map { String(thai[$0]) }, ["กิน"])
        let emoji = "😀 word"
        XCTAssertEqual(preview(emoji, [[1, 2]]).matchedRanges.map { String(emoji[$0]) }, ["😀"])
        let tone = "ภาษาที่สวย"
        let that = NSRange(tone.range(of: "ที่")!, in: tone)
        XCTAssertEqual(
            preview(tone, [[that.location + 1, that.location + 3]]).matchedRanges.map { String(tone[$0]) }, ["ที่"])
    }

    func testASearchsRangesHighlightTheQueryWord() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(1)))
        defer { store.close() }
        let file = TestSupport.temporaryPath("note.txt")
        try "Ünïcödé 😀 text about the Zeppelin airship, and another zeppelin.".write(
            toFile: file, atomically: true, encoding: .utf8)
        try store.library.add(fileAt: file, uid: "note")
        try store.library.waitUntilIndexed()
        let results = try store.library.search("zeppelin")
        let first = try XCTUnwrap(results.previews.first)
        XCTAssertEqual(first.matchedRanges.map { String(first.preview[$0]).lowercased() }, ["zeppelin", "zeppelin"])
    }
}
