import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// An ends-with or inner pattern read by scanning FTS4's segments (`FTS4Postings+Scan`, the
/// leaves `TermPattern.mayHoldMatch` lets it skip) gives the rows and hits of every term it
/// stands for, added up: the same as reading each of those terms (from the vocabulary) alone,
/// through deep trees of small pages, deletes, half-done merges and one optimized segment.
final class FTS4PostingsScanTests: XCTestCase {
    /// Characters of every bigram script, with voicing marks, variation selectors and folds to
    /// several scalars, and Latin words.
    private static let pieces = [
        "品", "装", "安", "的", "人", "一", "丁", "七", "三", "上", "不", "中", "九", "书", "了", "事", "二", "五", "京",
        "今", "代", "们", "龍", "か", "が", "ぱ", "ア", "ヴ", "ｶﾞ", "葛\u{E0100}", "葛", "辻\u{FE00}", "한", "국", "어",
        "ก", "ำ", "ภ", "า", "ย", "𠀀", "𠀁", "々", "ㄅ", "ゟ", "り", "丁\u{3099}", "。", " ", " ", "\n", " geology ",
        " apologies ", " ology ",
    ]

    private static let patterns: [(String, TermPattern.Kind)] = [
        ("品", .infix), ("品", .suffix), ("葛", .infix), ("葛", .suffix), ("丁", .infix), ("한", .infix), ("한", .suffix),
        ("𠀁", .infix), ("が", .infix), ("り", .infix), ("り", .suffix), ("ำ", .infix), ("ology", .suffix),
        ("olog", .infix), ("龘", .infix),
    ]

    func testPatternsReadEveryTermTheyStandFor() throws {
        let (db, directory) = try FTS4PostingsTests.plainDatabase("fts4-scan")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try SearchTokenizer.register(on: db)
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute("PRAGMA page_size = 512")
        try db.execute("VACUUM")
        try db.execute("CREATE VIRTUAL TABLE deep USING fts4(body, tokenize=cipherdex)")
        try db.execute("CREATE VIRTUAL TABLE deep_terms USING fts4aux(deep)")
        var random = SeededWords(seed: 3)
        for start in Swift.stride(from: 1, to: 2401, by: 200) {
            try db.transaction {
                for docid in start..<(start + 200) {
                    let text = (0..<(20 + random.number(40))).map { _ in
                        // Skewed: the first pieces far more often.
                        Self.pieces[random.number(1 + random.number(Self.pieces.count))]
                    }
                    try db.execute(
                        "INSERT INTO deep (docid, body) VALUES (?, ?)",
                        [.integer(Int64(docid)), .text(text.joined())])
                }
            }
        }
        try compare("12 segments", db: db)
        try db.transaction { try db.execute("DELETE FROM deep WHERE docid % 7 = 0") }
        try db.execute("INSERT INTO deep(deep) VALUES('merge=20,2')")
        try compare("deleted, half-merged", db: db)
        try db.execute("INSERT INTO deep(deep) VALUES('optimize')")
        let height = try db.scalar("SELECT root FROM deep_segdir")?.blobValue?.first ?? 0
        XCTAssertGreaterThanOrEqual(height, 2, "interior nodes under the root")
        try compare("optimized, height \(height)", db: db)
    }

    /// Each pattern's rows against those of the terms it stands for read one by one.
    private func compare(_ label: String, db: Connection) throws {
        let vocabulary = try db.rows("SELECT term FROM deep_terms WHERE col = '*'").compactMap {
            $0.first?.textValue.map { Array($0.utf8) }
        }
        XCTAssertGreaterThan(vocabulary.count, 500, label)
        var found = 0
        for (text, kind) in Self.patterns {
            let token = SearchTokenizer.tokens(in: text)[0].text
            let pattern = TermPattern(bytes: Array(token.utf8), kind: kind)
            var hits: [Int64: UInt32] = [:]
            for term in vocabulary where pattern.matches(term) {
                let matches = try XCTUnwrap(
                    try FTS4Postings.matches(of: TermPattern(bytes: term, kind: .term), table: "deep", db: db))
                for (docid, count) in zip(matches.docids, matches.hits) { hits[docid, default: 0] += count }
            }
            let docids = hits.keys.sorted()
            let expected = FTS4Postings.Matches(docids: docids, hits: docids.map { hits[$0]! })
            if !docids.isEmpty { found += 1 }
            for divisor in [2, 0, .max] {
                let actual = try FTS4Postings.matches(of: pattern, table: "deep", denseFrom: divisor, db: db)
                XCTAssertEqual(actual, expected, "\(label): \(kind) \(text), dense from \(divisor)")
            }
        }
        XCTAssertGreaterThanOrEqual(found, Self.patterns.count - 1, label)  // all but 龘
    }
}
