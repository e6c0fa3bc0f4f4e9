import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The `cipherdex_bm25` ranking function.
final class BM25Tests: XCTestCase {
    /// The formula on a hand-made 'pcnalx' array.
    func testFormula() throws {
        // 1 phrase, 1 column, 10 rows, average length 100, this row length 50, tf 2, df 3.
        let info: [UInt32] = [1, 1, 10, 100, 50, 2, 9, 3]
        let idf = log1p((10 - 3 + 0.5) / (3 + 0.5))
        let expected = idf * 2 * (BM25.k1 + 1) / (2 + BM25.k1 * (1 - BM25.b + BM25.b * 0.5))
        XCTAssertEqual(try BM25.score(matchInfo: info), expected, accuracy: 1e-12)
        XCTAssertEqual(try BM25.score(matchInfo: info, weights: [2]), 2 * expected, accuracy: 1e-12)
        XCTAssertEqual(try BM25.score(matchInfo: [1, 1, 10, 100, 50, 0, 9, 3]), 0)
        XCTAssertThrowsError(try BM25.score(matchInfo: [1, 1, 10, 100])) {
            XCTAssertEqual($0 as? BM25.MatchInfoError, .malformed(count: 4))
            // A LocalizedError like every public error, with one line saying what is wrong.
            XCTAssertEqual(
                ($0 as? LocalizedError)?.errorDescription,
                "a matchinfo array of 4 values does not fit the 'pcnalx' layout "
                    + "(3 + 2 × columns + 3 × columns × phrases values, at most 65536 columns and phrases)")
        }
        XCTAssertThrowsError(try BM25.score(matchInfo: []))
        XCTAssertThrowsError(try BM25.score(matchInfo: [UInt32.max, UInt32.max, 1]))
    }

    /// A row's score from its hits and length (`RowScorer`) is `score`'s of its 'pcnalx' values,
    /// bit for bit.
    func testScoresOfManyRowsAreEachRowsScore() throws {
        var generator = SearchTokenizerEquivalenceTests.SplitMix(state: 12)
        for phrases in 1...4 {
            let rows = 1_000
            let documents = (0..<phrases).map { _ in UInt32.random(in: 1...UInt32(rows), using: &generator) }
            let totals = (0..<phrases).map { _ in UInt32.random(in: 1...100_000, using: &generator) }
            let average = UInt32.random(in: 0...400, using: &generator)
            let hits = (0..<(rows * phrases)).map { _ in UInt32.random(in: 0...3, using: &generator) * 7 }
            let lengths = (0..<rows).map { _ in UInt32.random(in: 0...2_000, using: &generator) }
            let scorer = BM25.RowScorer(rows: UInt32(rows), average: average, documents: documents)
            let scores = hits.withUnsafeBufferPointer { hits in
                (0..<rows).map { scorer.score($0, hits: hits, length: lengths[$0]) }
            }
            for row in 0..<rows {
                var info: [UInt32] = [UInt32(phrases), 1, UInt32(rows), average, lengths[row]]
                for phrase in 0..<phrases { info += [hits[row * phrases + phrase], totals[phrase], documents[phrase]] }
                XCTAssertEqual(scores[row].bitPattern, try BM25.score(matchInfo: info).bitPattern, "\(info)")
            }
        }
    }

    /// Ranked rowids for `query` over table `t`, best first.
    private func ranked(_ connection: Connection, _ query: String, weights: String = "") throws -> [Int64] {
        let condition = try SearchQuery.parse(query, options: .exactWords).compiled().condition(table: "t")
        let sql =
            "SELECT rowid FROM t WHERE \(condition.sql) ORDER BY cipherdex_bm25(matchinfo(t, 'pcnalx')\(weights)) DESC, rowid"
        return try connection.rows(sql, condition.arguments).compactMap { $0[0].integerValue }
    }

    /// More matches, rarer terms, shorter documents and heavier columns rank higher.
    func testRankingInSQL() throws {
        let connection = try SearchTestSupport.connection()
        try connection.execute("CREATE VIRTUAL TABLE t USING fts4(title, body, tokenize=cipherdex)")
        let rows: [(String, String)] = [
            (
                "Notes",
                "encryption is mentioned once in this rather long document about many other common things common common"
            ),
            ("Memo", "encryption encryption encryption: a short note"),
            ("Report", "common words only common"),
            ("Zoo", "common zebra"),
            ("Encryption", "a document about keys"),
            ("暗号化", "暗号化の文書 暗号化 暗号化"),
            ("文書", "暗号化について"),
        ]
        for (title, body) in rows {
            try connection.execute("INSERT INTO t(title, body) VALUES (?, ?)", [.text(title), .text(body)])
        }
        let encryption = try ranked(connection, "encryption")
        XCTAssertEqual(Set(encryption), [1, 2, 5])
        XCTAssertLessThan(encryption.firstIndex(of: 2)!, encryption.firstIndex(of: 1)!)
        // A rare term outweighs a common one.
        XCTAssertEqual(try ranked(connection, "common OR zebra").first, 4)
        // Column weights: the title match wins when titles weigh ten times more.
        XCTAssertEqual(try ranked(connection, "encryption", weights: ", 10.0, 1.0").first, 5)
        XCTAssertEqual(try ranked(connection, "encryption", weights: ", 0.0, 1.0").first, 2)
        // CJK: three mentions beat one.
        XCTAssertEqual(try ranked(connection, "暗号化").first, 6)
        // Scores are positive and ordered.
        let scores = try connection.rows(
            "SELECT cipherdex_bm25(matchinfo(t, 'pcnalx')) FROM t WHERE t MATCH '\"encryption\"'"
        ).compactMap { $0[0].doubleValue }
        XCTAssertTrue(scores.allSatisfy { $0 > 0 })
    }

    /// Bad arguments are SQL errors, not crashes.
    func testBadArgumentsAreSQLErrors() throws {
        let connection = try SearchTestSupport.connection()
        try connection.execute("CREATE VIRTUAL TABLE t USING fts4(body, tokenize=cipherdex)")
        try connection.execute("INSERT INTO t(body) VALUES ('hello world')")
        XCTAssertThrowsError(try connection.scalar("SELECT cipherdex_bm25()"))
        XCTAssertThrowsError(try connection.scalar("SELECT cipherdex_bm25('text')"))
        XCTAssertThrowsError(try connection.scalar("SELECT cipherdex_bm25(x'0100000001000000')"))
        XCTAssertThrowsError(try connection.scalar("SELECT cipherdex_bm25(matchinfo(t)) FROM t WHERE t MATCH 'hello'"))
        XCTAssertNotNil(
            try connection.scalar("SELECT cipherdex_bm25(matchinfo(t, 'pcnalx')) FROM t WHERE t MATCH 'hello'")?
                .doubleValue)
    }
}
