import XCTest

@testable import Cipherdex

/// `PhraseWindow` and `PhraseCounter` on doclists written by hand: several terms of one token,
/// a newer segment's entry deleting a row, windows far apart, and lists that must be refused.
final class PhraseWindowTests: XCTestCase {
    /// An FTS4 doclist: each row's docid (the first whole, then deltas), its positions (deltas
    /// plus 2) and a 0.
    private func doclist(_ rows: [(docid: Int64, positions: [UInt64])]) -> [UInt8] {
        var bytes: [UInt8] = []
        func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7f) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
        var previousDocid: Int64 = 0
        for row in rows {
            varint(UInt64(row.docid - previousDocid))
            previousDocid = row.docid
            var previous: UInt64 = 0
            for position in row.positions {
                varint(position - previous + 2)
                previous = position
            }
            bytes.append(0)
        }
        return bytes
    }

    /// A token's window from doclists given newest segment first, each with its term's number.
    private func window(_ lists: [(term: Int, bytes: [UInt8])]) -> PhraseWindow {
        let doclists = PhraseWindow.Doclists()
        for list in lists { list.bytes.withUnsafeBytes { doclists.add($0, term: list.term) } }
        return PhraseWindow(doclists)
    }

    func testTermsOfATokenAreMergedPerRow() {
        // Token A: term 0 at 1 and 5 of row 3; term 1 at 9 of row 3 and at 0 of row 4.
        let a = window([
            (0, doclist([(3, [1, 5])])),
            (1, doclist([(3, [9]), (4, [0])])),
        ])
        // Token B: at 2 and 10 of row 3, at 1 of row 4, at 7 of row 200,000 (another window).
        let b = window([(0, doclist([(3, [2, 10]), (4, [1]), (200_000, [7])]))])
        let matches = FTS4Postings.phraseMatches([a, b])
        XCTAssertEqual(matches, FTS4Postings.Matches(docids: [3, 4], hits: [2, 1]))
    }

    func testANewerSegmentsEmptyEntryDeletesTheRow() {
        let a = window([(0, doclist([(3, [1]), (4, [0])]))])
        // Newest first: row 4's empty list deletes the older entry; row 3 is only in the older.
        let b = window([
            (0, doclist([(4, [])])),
            (0, doclist([(3, [2]), (4, [1])])),
        ])
        XCTAssertEqual(FTS4Postings.phraseMatches([a, b]), FTS4Postings.Matches(docids: [3], hits: [1]))
    }

    func testRepeatedAndThreeTokenPhrases() {
        let x = doclist([(1, [0, 1, 2, 3]), (70_000, [5, 6, 8])])
        XCTAssertEqual(
            FTS4Postings.phraseMatches([window([(0, x)]), window([(0, x)])]),
            FTS4Postings.Matches(docids: [1, 70_000], hits: [3, 1]))
        XCTAssertEqual(
            FTS4Postings.phraseMatches([window([(0, x)]), window([(0, x)]), window([(0, x)])]),
            FTS4Postings.Matches(docids: [1], hits: [2]))
    }

    func testListsThatDoNotParseOrReachTooFarAreRefused() {
        let a = window([(0, doclist([(3, [1])]))])
        let far = window([(0, doclist([(3, [UInt64(PhraseCounter.positionLimit)])]))])
        XCTAssertNil(FTS4Postings.phraseMatches([a, far]), "a position past the limit goes to FTS4")
        let cut = window([(0, [3, 0x83])])
        XCTAssertNil(FTS4Postings.phraseMatches([a, cut]), "a position list that does not end")
        let descending = window([(0, [5, 3, 0, 0, 3, 0])])
        XCTAssertNil(FTS4Postings.phraseMatches([a, descending]), "docids that do not ascend")
        let column = window([(0, [3, 3, 1, 1, 2, 0])])
        XCTAssertNil(FTS4Postings.phraseMatches([a, column]), "a second column")
        XCTAssertEqual(FTS4Postings.phraseMatches([]), FTS4Postings.Matches())
    }
}
