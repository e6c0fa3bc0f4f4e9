import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The Swift tokenizer inside real FTS4 tables (SQLCipher 3.4.1 / SQLite 3.15.2).
final class FTSTokenizerTests: XCTestCase {
    /// Documents in several scripts.
    static let documents = [
        "The Crème Brûlée recipe from the École in Straße 5",
        "東京タワーは日本の電波塔です。",
        "中文搜索引擎测试文档",
        "한국어 문서 검색 테스트입니다",
        "Running connections were connected quickly",
        "Ordinary English text about invoices",
    ]

    /// A table `t` with `tokenizer`, filled with `documents` (rowid = index + 1).
    private func makeTable(_ tokenizer: String, encrypted: Bool = false) throws -> Connection {
        let connection = try SearchTestSupport.connection(encrypted: encrypted)
        try connection.execute("CREATE VIRTUAL TABLE t USING fts4(content, tokenize=\(tokenizer))")
        for document in Self.documents {
            try connection.execute("INSERT INTO t(content) VALUES (?)", [.text(document)])
        }
        return connection
    }

    /// The rowids matching `query`.
    private func matches(_ connection: Connection, _ query: String) throws -> [Int64] {
        try connection.rows("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid", [.text(query)]).compactMap { $0[0].integerValue }
    }

    /// MATCH in several scripts, with case and diacritics folded.
    func testMatchAcrossScripts() throws {
        for encrypted in [false, true] {
            let connection = try makeTable("cipherdex", encrypted: encrypted)
            XCTAssertEqual(try matches(connection, "creme"), [1])
            XCTAssertEqual(try matches(connection, "CRÈME brulee"), [1])
            XCTAssertEqual(try matches(connection, "strasse"), [1])
            XCTAssertEqual(try matches(connection, "ecole"), [1])
            XCTAssertEqual(try matches(connection, "東京"), [2])
            // A bigram run goes on across white space, so pieces of a phrase are separated by a
            // comma (as the query compiler does).
            XCTAssertEqual(try matches(connection, "\"電波 , 波塔\""), [2])
            // Unquoted, FTS3 keeps only the first token of a bareword (電波) and re-parses the
            // rest (塔); the query compiler therefore always quotes.
            XCTAssertEqual(try matches(connection, "\"電波塔\""), [2])
            XCTAssertEqual(try matches(connection, "日本*"), [2])
            XCTAssertEqual(try matches(connection, "搜索"), [3])
            XCTAssertEqual(try matches(connection, "한국"), [4])
            XCTAssertEqual(try matches(connection, "검색"), [4])
            XCTAssertEqual(try matches(connection, "京都"), [])
            XCTAssertEqual(try matches(connection, "running"), [5])
            XCTAssertEqual(try matches(connection, "run"), [])
            XCTAssertEqual(try matches(connection, "invoice*"), [6])
            XCTAssertEqual(try matches(connection, "text OR 東京"), [2, 6])
        }
    }

    /// With `cipherdex_stem`, inflections match each other.
    func testStemmingTokenizer() throws {
        let connection = try makeTable("cipherdex_stem")
        XCTAssertEqual(try matches(connection, "run"), [5])
        XCTAssertEqual(try matches(connection, "connecting"), [5])
        XCTAssertEqual(try matches(connection, "invoice"), [6])
        XCTAssertEqual(try matches(connection, "東京"), [2])
        let argument = try SearchTestSupport.connection()
        try argument.execute("CREATE VIRTUAL TABLE s USING fts4(content, tokenize=cipherdex stem)")
        try argument.execute("INSERT INTO s(content) VALUES ('connections')")
        XCTAssertEqual(try argument.scalar("SELECT count(*) FROM s WHERE s MATCH 'connected'"), .integer(1))
    }

    /// `offsets()` and `snippet()` point at the original (unfolded, multi-byte) text.
    func testOffsetsAndSnippetsPointAtOriginalText() throws {
        let connection = try makeTable("cipherdex")
        let cases: [(query: String, row: Int64, word: String)] = [
            ("brulee", 1, "Brûlée"), ("strasse", 1, "Straße"), ("電波", 2, "電波"), ("검색", 4, "검색"), ("ecole", 1, "École"),
        ]
        for (query, row, word) in cases {
            let offsets = try XCTUnwrap(try connection.scalar("SELECT offsets(t) FROM t WHERE t MATCH ? AND rowid = ?", [.text(query), .integer(row)])?.textValue)
            let numbers = offsets.split(separator: " ").compactMap { Int($0) }
            XCTAssertEqual(numbers.count, 4, offsets)
            let utf8 = Array(Self.documents[Int(row) - 1].utf8)
            XCTAssertEqual(String(decoding: utf8[numbers[2]..<(numbers[2] + numbers[3])], as: UTF8.self), word, query)
            let snippet = try connection.scalar("SELECT snippet(t, '[', ']', '…') FROM t WHERE t MATCH ? AND rowid = ?", [.text(query), .integer(row)])
            XCTAssertTrue(snippet?.textValue?.contains("[\(word)]") == true, "\(snippet?.textValue ?? "nil")")
        }
    }

    /// Registration is per connection: a second connection needs it too, and after registering,
    /// the two-argument `fts3_tokenizer()` is disabled again.
    func testRegistrationIsPerConnectionAndLockedAfterwards() throws {
        let connection = try SearchTestSupport.connection()
        try connection.execute("CREATE VIRTUAL TABLE t USING fts4(content, tokenize=cipherdex)")
        try connection.execute("INSERT INTO t(content) VALUES ('Grüße aus München')")
        XCTAssertThrowsError(try connection.scalar("SELECT fts3_tokenizer('evil', x'0000000000000000')"))
        let other = try Connection(path: connection.path, mode: .writer, key: nil, cipher: nil)
        XCTAssertThrowsError(try other.scalar("SELECT count(*) FROM t WHERE t MATCH 'grusse'"))
        try other.registerSearchSupport()
        XCTAssertEqual(try other.scalar("SELECT count(*) FROM t WHERE t MATCH 'grusse munchen'"), .integer(1))
    }

    /// A large document streams through the tokenizer and stays searchable.
    func testLargeDocument() throws {
        let connection = try SearchTestSupport.connection()
        try connection.execute("CREATE VIRTUAL TABLE t USING fts4(content, tokenize=cipherdex)")
        let body = (0..<20_000).map { "word\($0 % 500) 日本語\($0 % 7)" }.joined(separator: " ") + " needle"
        try connection.execute("INSERT INTO t(content) VALUES (?)", [.text(body)])
        XCTAssertEqual(try connection.scalar("SELECT count(*) FROM t WHERE t MATCH 'needle'"), .integer(1))
        XCTAssertEqual(try connection.scalar("SELECT count(*) FROM t WHERE t MATCH 'word499 本語'"), .integer(1))
    }
}
